/**
 * The commands of docs/install.md and docs/troubleshooting.md, run as the docs write them: each
 * fenced block marked `<!-- tested: SCENARIO -->` is split into argument arrays (no shell,
 * test/support/docs/split-command-lines.ts), its documented placeholders are replaced from
 * PLACEHOLDERS, and each command runs with execFile from the clone's root, with kubectl (built from
 * the guest tools' Go module), helm and voe on PATH and KUBECONFIG naming a real kube-apiserver
 * with Harvester's CRDs (the Addon among them). Scenarios run in SCENARIOS' order, each block of a
 * scenario in file order; what Harvester's controllers would do between them (the Addon's status,
 * a webhook configuration left behind) is done by the scenario's `before`, what they do while the
 * commands run by its `meanwhile` (the Job controller and the kubelet running helm's hook Jobs:
 * test/support/charts/job-actor.ts), and its `after` checks
 * what the commands did. The blocks no test runs here say why (test/unit/docs/tested-docs.test.ts).
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import {
  AdmissionregistrationV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
} from '@kubernetes/client-node';
import { ensureNamespaces, useChartControlPlane } from '../../support/charts/cluster.js';
import { playJobs } from '../../support/charts/job-actor.js';
import { repoRoot, useHelm, type Helm } from '../../support/charts/render.js';
import { splitCommandLines } from '../../support/docs/split-command-lines.js';
import { testedDocBlocks, type DocBlock } from '../../support/docs/tested-docs.js';
import { testCacheDir } from '../../support/use-control-plane.js';
import { VOE_MAIN } from '../../support/run-voe.js';
import { buildGuestTool, GUEST_TOOLS } from '../../../src/controlplane/guest-tools/index.js';
import { isNotFound } from '../../../src/kube/index.js';

const REGISTRY = 'registry.example.com/voe';
const ADDON = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'addons' } as const;

interface Context {
  url: string;
  kubeconfig: string;
  manifests: string;
}

/** Each placeholder the docs write, and what the test runs instead. */
const PLACEHOLDERS = (context: Context): Array<[string, string]> => [
  // The chart repository's in-cluster URL: here, dist/package served on 127.0.0.1.
  ['http://voe-charts.voe-charts.svc', context.url],
  ['REGISTRY', REGISTRY],
  [
    ' [--kubeconfig K] [--timeout 120] [--json]',
    ` --kubeconfig ${context.kubeconfig} --timeout 120 --json`,
  ],
  // Optional arguments of helm install and upgrade: the chart's defaults, and no --wait (its pods
  // would need a kubelet).
  [' [-f my-values.yaml] [--wait]', ''],
  [' [-f my-values.yaml]', ''],
  // The rendered manifests' directory: a temporary one, not the clone's.
  ['voe-manifests', context.manifests],
];

interface CommandRun {
  argv: string[];
  stdout: string;
}

interface Scenario {
  name: string;
  /** What the cluster's controllers would have done before the block's commands. */
  before?: () => Promise<void>;
  /** What the cluster's controllers do while the commands run (until they are done). */
  meanwhile?: (done: () => boolean) => Promise<void>;
  /** Checks what the commands did. */
  after?: (runs: CommandRun[]) => Promise<void>;
}

describe('the commands of docs/install.md and docs/troubleshooting.md, run on a real API server', function () {
  this.timeout(5 * 60_000);
  const cp = useChartControlPlane();
  const blocks = testedDocBlocks().filter((block) => block.tested);
  let helm: Helm;
  let dir: string;
  let server: Server;
  let context: Context;
  let env: NodeJS.ProcessEnv;

  before(async function () {
    this.timeout(15 * 60_000);
    helm = await useHelm();
    const kubectl = await buildGuestTool(
      GUEST_TOOLS.find((tool) => tool.binary === 'kubectl')!,
      {
        cacheDir: testCacheDir(),
        onProgress: (line) => process.stderr.write(`${line}\n`),
      },
    );
    dir = await mkdtemp(join(tmpdir(), 'voe-docs-'));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await symlink(VOE_MAIN, join(bin, 'voe'));
    await symlink(helm.binary, join(bin, 'helm'));
    await symlink(kubectl, join(bin, 'kubectl'));
    const served = join(repoRoot(), 'dist/package');
    server = createServer((request, response) => {
      const path = normalize(join(served, decodeURIComponent(request.url ?? '/')));
      if (!path.startsWith(served)) {
        response.writeHead(404).end();
        return;
      }
      const stream = createReadStream(path);
      stream.on('error', () => response.writeHead(404).end());
      stream.on('open', () => stream.pipe(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    context = {
      url: `http://127.0.0.1:${port}`,
      kubeconfig: cp.current.kubeconfigPath,
      manifests: join(dir, 'voe-manifests'),
    };
    env = {
      PATH: [bin, dirname(process.execPath), process.env['PATH'] ?? '/usr/bin:/bin'].join(':'),
      HOME: join(dir, 'home'),
      HELM_CACHE_HOME: join(dir, 'helm', 'cache'),
      HELM_CONFIG_HOME: join(dir, 'helm', 'config'),
      HELM_DATA_HOME: join(dir, 'helm', 'data'),
      KUBECONFIG: cp.current.kubeconfigPath,
    };
  });
  after(async () => {
    await helm?.cleanup();
    await new Promise((resolve) => server?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const objects = () => cp.current.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = () => cp.current.kubeConfig.makeApiClient(CoreV1Api);
  const admission = () => cp.current.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const addon = () =>
    objects().getNamespacedCustomObject({
      ...ADDON,
      namespace: 'voe-system',
      name: 'volume-online-expansion',
    }) as Promise<{ spec: Record<string, unknown>; status?: Record<string, unknown> }>;
  /** What Harvester's Addon controller writes (this API server runs no controllers). */
  const setAddonStatus = async (status: Record<string, unknown>) => {
    const body = { ...(await addon()), status };
    await objects().replaceNamespacedCustomObjectStatus({
      ...ADDON,
      namespace: 'voe-system',
      name: 'volume-online-expansion',
      body,
    });
  };

  /** The Job controller and the kubelet for the hook Jobs helm waits on, until the commands are done. */
  const playHookJobs = async (done: () => boolean): Promise<void> => {
    const actor = playJobs(cp.current, 'voe-system');
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 200));
    await actor.stop();
    for (const run of actor.runs) assert.strictEqual(run.code, 0, `${run.job}: ${run.output}`);
    hookJobs = actor.runs.map((run) => run.job);
  };
  const configuration = () =>
    admission()
      .readValidatingWebhookConfiguration({ name: 'voe' })
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
  const secretNames = async () =>
    (await core().listNamespacedSecret({ namespace: 'voe-system' })).items.map(
      (secret) => secret.metadata!.name!,
    );

  let caBundle = '';
  /** The Jobs the last commands made helm wait on, in the order they ran. */
  let hookJobs: string[] = [];
  const SCENARIOS: Scenario[] = [
    {
      name: 'package',
      after: async () => {
        const index = await fetch(`${context.url}/index.yaml`);
        assert.strictEqual(index.status, 200);
        assert.include(await index.text(), `${context.url}/volume-online-expansion-`);
      },
    },
    {
      name: 'repository-in-cluster',
      after: async () => {
        const served = join(repoRoot(), 'dist/package');
        const map = await core().readNamespacedConfigMap({
          namespace: 'voe-charts',
          name: 'voe-charts',
        });
        // Every file of dist/package, byte for byte: the archives as binaryData, the rest as data.
        const files = (await readdir(served)).sort();
        assert.sameMembers(
          [...Object.keys(map.data ?? {}), ...Object.keys(map.binaryData ?? {})],
          files,
        );
        for (const file of files) {
          const held = map.binaryData?.[file]
            ? Buffer.from(map.binaryData[file], 'base64')
            : Buffer.from(map.data![file]!);
          assert.isTrue(held.equals(await readFile(join(served, file))), file);
        }
        const deployment = await cp.current.kubeConfig
          .makeApiClient(AppsV1Api)
          .readNamespacedDeployment({ namespace: 'voe-charts', name: 'voe-charts' });
        const pod = deployment.spec!.template;
        assert.isDefined(pod.metadata!.annotations?.['kubectl.kubernetes.io/restartedAt']);
        const volume = pod.spec!.volumes!.find((v) => v.configMap?.name === 'voe-charts')!;
        assert.deepInclude(pod.spec!.containers[0]!.volumeMounts ?? [], {
          name: volume.name,
          mountPath: '/usr/share/nginx/html',
          readOnly: true,
        });
        const service = await core().readNamespacedService({
          namespace: 'voe-charts',
          name: 'voe-charts',
        });
        assert.deepStrictEqual(service.spec!.selector, deployment.spec!.selector.matchLabels);
        assert.deepInclude(
          service.spec!.ports!.map(({ port, targetPort }) => ({ port, targetPort })),
          { port: 80, targetPort: 'http' },
        );
      },
    },
    {
      name: 'repository',
      after: async (runs) => assert.include(runs[1]!.stdout, 'voe/volume-online-expansion'),
    },
    {
      name: 'addon',
      after: async () => {
        const { spec } = await addon();
        assert.strictEqual(spec['enabled'], true);
        assert.strictEqual(spec['repo'], context.url);
        assert.include(spec['valuesContent'] as string, `repository: ${REGISTRY}/voe`);
      },
    },
    {
      name: 'addon-status',
      before: () =>
        setAddonStatus({
          status: 'AddonDeploySuccessful',
          conditions: [
            { type: 'OperationFailed', status: 'False', reason: 'Done', message: 'installed' },
          ],
        }),
      after: async (runs) => {
        const outputs = runs.map((run) => run.stdout);
        assert.deepEqual(outputs, [
          'AddonDeploySuccessful\n',
          'AddonDeploySuccessful\n',
          'OperationFailed=False Done installed\n',
        ]);
      },
    },
    {
      name: 'crds',
      after: async (runs) => assert.isNotEmpty(JSON.parse(runs[0]!.stdout)),
    },
    {
      name: 'addon-removal',
      // kubectl delete waits until the namespace is gone: finalize it as the namespace controller
      // would once it is empty (the Addon, its only object here, is deleted with it).
      meanwhile: async (done) => {
        while (!done()) {
          const namespace = await core().readNamespace({ name: 'voe-system' });
          if (namespace.metadata?.deletionTimestamp) {
            await core().replaceNamespaceFinalize({
              name: 'voe-system',
              body: { ...namespace, spec: { finalizers: [] } },
            });
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      },
      after: async () => {
        const gone = await addon().then(
          () => false,
          (error: unknown) => isNotFound(error),
        );
        assert.isTrue(gone, 'the Addon is deleted');
      },
    },
    {
      name: 'webhook-leftover',
      before: async () => {
        await admission().createValidatingWebhookConfiguration({
          body: {
            metadata: { name: 'voe' },
            webhooks: [
              {
                name: 'pvc-resize.voe.harvesterhci.io',
                admissionReviewVersions: ['v1'],
                sideEffects: 'None',
                failurePolicy: 'Fail',
                clientConfig: {
                  service: { namespace: 'voe-system', name: 'voe-webhook', path: '/validate' },
                },
                rules: [
                  {
                    apiGroups: [''],
                    apiVersions: ['v1'],
                    operations: ['UPDATE'],
                    resources: ['persistentvolumeclaims'],
                  },
                ],
              },
            ],
          },
        });
      },
      after: async () => {
        const gone = await admission()
          .readValidatingWebhookConfiguration({ name: 'voe' })
          .then(
            () => false,
            (error: unknown) => isNotFound(error),
          );
        assert.isTrue(gone, 'the configuration voe is deleted');
      },
    },
    {
      name: 'helm-install',
      // The namespaces Harvester has, where the chart's Roles go.
      before: () =>
        ensureNamespaces(cp.current.kubeConfig, ['harvester-system', 'longhorn-system']),
      meanwhile: playHookJobs,
      after: async () => {
        // pre-install: the CRD, then the certificates; post-install: the caBundle.
        assert.deepStrictEqual(hookJobs, ['voe-crds-hook', 'voe-certs-hook', 'voe-certs-hook']);
        assert.isNotEmpty((await configuration())?.webhooks?.[0]?.clientConfig.caBundle);
        assert.includeMembers(await secretNames(), ['voe-webhook-ca', 'voe-webhook-tls']);
      },
    },
    {
      name: 'helm-upgrade',
      before: async () => {
        caBundle = (await configuration())!.webhooks![0]!.clientConfig.caBundle!;
      },
      meanwhile: playHookJobs,
      after: async () => {
        assert.deepStrictEqual(hookJobs, ['voe-crds-hook', 'voe-certs-hook', 'voe-certs-hook']);
        // The template carries no caBundle: the upgrade keeps the one voe certs ensure set.
        assert.strictEqual((await configuration())!.webhooks![0]!.clientConfig.caBundle, caBundle);
      },
    },
    {
      name: 'helm-uninstall',
      meanwhile: playHookJobs,
      after: async () => {
        // tracker.enable is off by default: no pre-delete hook.
        assert.deepStrictEqual(hookJobs, []);
        assert.isUndefined(await configuration(), 'the configuration voe is deleted');
        // Left behind, as the section says: written by voe certs ensure, not by Helm.
        assert.includeMembers(await secretNames(), ['voe-webhook-ca', 'voe-webhook-tls']);
      },
    },
    {
      name: 'plain-kubectl',
      // What the Uninstall section removes by hand: the Secrets, then the namespace (finalized as
      // the namespace controller does once it is empty).
      before: async () => {
        for (const name of ['voe-webhook-ca', 'voe-webhook-tls'])
          await core().deleteNamespacedSecret({ namespace: 'voe-system', name });
        await core().deleteNamespace({ name: 'voe-system' });
        const namespace = await core().readNamespace({ name: 'voe-system' });
        await core().replaceNamespaceFinalize({
          name: 'voe-system',
          body: { ...namespace, spec: { finalizers: [] } },
        });
      },
      meanwhile: playHookJobs,
      after: async () => {
        assert.deepStrictEqual(hookJobs, ['voe-certs-init']);
        assert.isNotEmpty((await configuration())?.webhooks?.[0]?.clientConfig.caBundle);
        assert.includeMembers(await secretNames(), ['voe-webhook-ca', 'voe-webhook-tls']);
      },
    },
    {
      name: 'install-checks',
      // The EndpointSlice controller's placeholder slice of a Service no pod is ready behind
      // (k8s.io/endpointslice reconciler.go, reconcile: newEndpointSlice with no endpoints and no
      // ports, named after the Service, labelled with its name and the Service's own labels).
      before: async () => {
        const service = await core().readNamespacedService({
          namespace: 'voe-system',
          name: 'voe-webhook',
        });
        await cp.current.kubeConfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
          namespace: 'voe-system',
          body: {
            metadata: {
              generateName: 'voe-webhook-',
              labels: {
                ...service.metadata!.labels,
                'kubernetes.io/service-name': 'voe-webhook',
                'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
              },
              ownerReferences: [
                {
                  apiVersion: 'v1',
                  kind: 'Service',
                  name: 'voe-webhook',
                  uid: service.metadata!.uid!,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            addressType: 'IPv4',
            endpoints: [],
            ports: [],
          },
        });
      },
      meanwhile: playHookJobs,
      after: async (runs) => {
        const [pods, slices, caBundle, , canI] = runs.map((run) => run.stdout);
        assert.strictEqual(pods, '', 'no webhook pod here');
        assert.match(slices!, /^voe-webhook-\w+\s+IPv4\s+<unset>\s+<unset>/m);
        assert.strictEqual(caBundle, (await configuration())!.webhooks![0]!.clientConfig.caBundle);
        assert.deepStrictEqual(hookJobs, ['voe-certs-now']);
        assert.strictEqual(canI, 'yes\n');
      },
    },
  ];

  it('has a scenario for every tested block and a tested block for every scenario', () => {
    const named = new Set(blocks.map((block) => block.tested));
    assert.sameMembers(
      [...named],
      SCENARIOS.map((scenario) => scenario.name),
    );
  });

  for (const scenario of SCENARIOS) {
    it(`runs the blocks marked "tested: ${scenario.name}"`, async () => {
      const runs: CommandRun[] = [];
      await scenario.before?.();
      let done = false;
      const meanwhile = scenario.meanwhile?.(() => done);
      try {
        for (const block of blocks.filter((b) => b.tested === scenario.name))
          for (const argv of commandsOf(block, PLACEHOLDERS(context)))
            runs.push({ argv, stdout: await runCommand(block, argv, env) });
      } finally {
        done = true;
        await meanwhile;
      }
      await scenario.after?.(runs);
    });
  }
});

/** The block's commands with its placeholders replaced. */
function commandsOf(block: DocBlock, placeholders: Array<[string, string]>): string[][] {
  let text = block.text;
  for (const [placeholder, value] of placeholders) text = text.replaceAll(placeholder, value);
  return splitCommandLines(text);
}

/** Runs one command from the clone's root; resolves with its stdout, fails with its exit and stderr. */
function runCommand(block: DocBlock, argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      { cwd: repoRoot(), env, timeout: 120_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `${block.file}:${block.line}: ${argv.join(' ')} failed (${error.code ?? error.signal}): ${stderr}${stdout}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}
