/**
 * The host chart as an operator gets it and removes it, on a real kube-apiserver: `npm run
 * package` for a repository URL and an image registry, the repository served over HTTP on
 * 127.0.0.1, `helm repo add` and `helm install --no-hooks` with the rendered Addon's valuesContent
 * as values (what Harvester's helm Job runs), then each hook's command run as a process with the
 * hook's ServiceAccount credentials. Then removal in each order, each on its own release
 * namespace: afterwards no ValidatingWebhookConfiguration of voe is left and a PVC grow is not
 * refused by voe. Grows in the namespaces the webhooks' namespaceSelector leaves out (kube-system,
 * the release namespace, webhook.excludedNamespaces, a namespace labelled to opt out) are never
 * sent to voe, even with no webhook answering. This API server runs no controllers and reaches no Service: deleting a
 * namespace leaves it Terminating, the kubelet's SIGTERM to the webhook pods is sent here to the
 * voe serve process, and while the configuration is there every grow is refused (failurePolicy
 * Fail, no endpoint), which is what "not refused by voe" is checked against. The last case runs
 * kube-controller-manager's namespace controller and garbage collector, with no webhook process
 * at all: the configuration goes with the namespace that owns it.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  StorageV1Api,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import {
  ensureNamespaces,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
} from '../../support/charts/cluster.js';
import { repoRoot, useHelm, type Helm, type Rendered } from '../../support/charts/render.js';
import { writeSecretVolume } from '../../support/charts/secret-volume.js';
import { eventually } from '../../support/eventually.js';
import { runVoe, VOE_MAIN } from '../../support/run-voe.js';
import { logTail, startTool } from '../../support/guest-cluster/tool-process.js';
import { testCacheDir } from '../../support/use-control-plane.js';
import { buildGuestTool, GUEST_TOOLS } from '../../../src/controlplane/guest-tools/index.js';
import { isNotFound } from '../../../src/kube/index.js';

const run = promisify(execFile);
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
const CHART = 'volume-online-expansion';

describe('the host chart from a served repository: installed with helm, its hooks run as their ServiceAccounts, removed in every order without leaving a webhook behind', function () {
  this.timeout(10 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;
  let dir: string;
  let server: Server;
  let url: string;
  let addonValues: Record<string, unknown>;
  let kubeconfig: string;

  before(async () => {
    helm = await useHelm();
    dir = await mkdtemp(join(tmpdir(), 'voe-repo-'));
    const served = join(dir, 'repo');
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
    url = `http://127.0.0.1:${port}`;
    await run(
      process.execPath,
      [
        join(repoRoot(), 'scripts/package.mjs'),
        '--repo-url',
        url,
        '--registry',
        'registry.example.com/voe',
        '--out',
        served,
        '--helm',
        helm.binary,
      ],
      { cwd: repoRoot() },
    );
    const addon = parseAllDocuments(await readFile(join(served, 'addon.yaml'), 'utf8'))
      .map((doc) => doc.toJS() as Rendered)
      .find((doc) => doc.kind === 'Addon')!;
    const spec = addon['spec'] as { repo: string; valuesContent: string; version: string };
    assert.strictEqual(spec.repo, url);
    addonValues = parse(spec.valuesContent) as Record<string, unknown>;
    assert.deepStrictEqual(addonValues['image'], {
      repository: 'registry.example.com/voe/voe',
      tag: spec.version,
    });
    kubeconfig = cp.current.kubeconfigPath;
    const added = await helm.run(['repo', 'add', 'voe', url]);
    assert.strictEqual(added.code, 0, added.stderr);
    await ensureNamespaces(cp.current.kubeConfig, ['harvester-system', 'longhorn-system', 'vms']);
    await setUpGrowableClaim('vms');
  });
  after(async () => {
    await helm?.cleanup();
    await new Promise((resolve) => server?.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const admission = () => cp.current.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const core = () => cp.current.kubeConfig.makeApiClient(CoreV1Api);

  /** A bound 1Gi PVC `data` in `namespace` whose StorageClass allows expansion (no VM uses it: voe admits its grows). */
  async function setUpGrowableClaim(namespace: string): Promise<void> {
    if (namespace === 'vms')
      await cp.current.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
        body: {
          metadata: { name: 'growable' },
          provisioner: 'growable.example.com',
          allowVolumeExpansion: true,
        },
      });
    await core().createPersistentVolume({
      body: {
        metadata: { name: `pv-growable-${namespace}` },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'growable',
          csi: { driver: 'growable.example.com', volumeHandle: `v-${namespace}` },
          claimRef: { namespace, name: 'data' },
        },
      },
    });
    await core().createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'growable',
          volumeName: `pv-growable-${namespace}`,
          resources: { requests: { storage: '1Gi' } },
        },
      },
    });
    await core().replaceNamespacedPersistentVolumeClaimStatus({
      namespace,
      name: 'data',
      body: {
        ...(await core().readNamespacedPersistentVolumeClaim({ namespace, name: 'data' })),
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
      },
    });
  }

  /** The size (in Gi) each namespace's claim `data` was grown to. */
  const sizes = new Map<string, number>();
  /** Grows `namespace`/data by 1Gi as a user would; resolves with the API server's refusal, or undefined. */
  async function grow(namespace = 'vms'): Promise<string | undefined> {
    const size = sizes.get(namespace) ?? 1;
    try {
      const claim = await core().readNamespacedPersistentVolumeClaim({ namespace, name: 'data' });
      claim.spec!.resources!.requests!['storage'] = `${size + 1}Gi`;
      await core().replaceNamespacedPersistentVolumeClaim({ namespace, name: 'data', body: claim });
      sizes.set(namespace, size + 1);
      return undefined;
    } catch (error) {
      return String((error as { body?: unknown }).body ?? error);
    }
  }

  async function configurationLeft(): Promise<boolean> {
    return await admission()
      .readValidatingWebhookConfiguration({ name: 'voe' })
      .then(
        () => true,
        (error: unknown) => {
          if (isNotFound(error)) return false;
          throw error;
        },
      );
  }

  /** helm install --no-hooks from the repository, then the pre-install/post-install hooks' commands as their ServiceAccounts. */
  async function install(namespace: string): Promise<Rendered[]> {
    await ensureNamespaces(cp.current.kubeConfig, [namespace]);
    const values = await helm.writeValues(addonValues);
    const installed = await helm.run([
      'install',
      'voe',
      `voe/${CHART}`,
      '--namespace',
      namespace,
      '--no-hooks',
      '-f',
      values,
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(installed.code, 0, installed.stderr);
    const hooksOut = await helm.run([
      'get',
      'hooks',
      'voe',
      '--namespace',
      namespace,
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(hooksOut.code, 0, hooksOut.stderr);
    const hooks = parseAllDocuments(hooksOut.stdout)
      .map((doc) => doc.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null);
    for (const object of hooks.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
      await serverSideApply(cp.current.kubeConfig, stripHook(object));
    for (const job of hooks.filter(
      (o) => o.kind === 'Job' && /install/.test(o.metadata!.annotations!['helm.sh/hook']!),
    ))
      await runAsJob(job, namespace);
    return hooks;
  }

  /** A hook Job's container arguments, run as voe with its ServiceAccount's credentials. */
  async function runAsJob(job: Rendered, namespace: string): Promise<void> {
    const pod = (
      job['spec'] as {
        template: { spec: { serviceAccountName: string; containers: Array<{ args: string[] }> } };
      }
    ).template.spec;
    const account = serviceAccount(namespace, pod.serviceAccountName);
    const { path } = await cp.current.mintKubeConfig(account.user, account.groups);
    await eventually(
      async () => {
        const result = await runVoe([...pod.containers[0]!.args, '--kubeconfig', path], {
          timeout: 120_000,
        });
        if (result.code !== 0) throw new Error(result.stderr);
        return true;
      },
      60_000,
      `${job.metadata!.name} as ${account.name} (RBAC in force)`,
    );
  }

  /** voe serve with the release's Deployment arguments, as voe-webhook, until it listens. */
  async function serve(namespace: string): Promise<ChildProcess> {
    const manifest = await helm.run([
      'get',
      'manifest',
      'voe',
      '--namespace',
      namespace,
      '--kubeconfig',
      kubeconfig,
    ]);
    const deployment = parseAllDocuments(manifest.stdout)
      .map((doc) => doc.toJS() as Rendered | null)
      .find((o) => o?.kind === 'Deployment' && o.metadata?.name === 'voe-webhook')!;
    const args = (
      deployment['spec'] as { template: { spec: { containers: Array<{ args: string[] }> } } }
    ).template.spec.containers[0]!.args;
    assert.includeMembers(args, [`--namespace=${namespace}`, '--registration=voe']);
    const secret = await core().readNamespacedSecret({ namespace, name: 'voe-webhook-tls' });
    const tlsDir = join(dir, `tls-${namespace}`);
    await writeSecretVolume(
      tlsDir,
      Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
      ),
    );
    const account = serviceAccount(namespace, 'voe-webhook');
    const { path } = await cp.current.mintKubeConfig(account.user, account.groups);
    const child = spawn(
      process.execPath,
      [
        VOE_MAIN,
        ...args.map((arg) =>
          arg
            .replace(/^--port=.*/, '--port=0')
            .replace(/^--shutdown-delay=.*/, '--shutdown-delay=0')
            .replace(/^--tls-cert-file=.*/, `--tls-cert-file=${join(tlsDir, 'tls.crt')}`)
            .replace(/^--tls-key-file=.*/, `--tls-key-file=${join(tlsDir, 'tls.key')}`),
        ),
        '--bind-address=127.0.0.1',
        '--kubeconfig',
        path,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    await eventually(
      () => {
        if (child.exitCode !== null) assert.fail(`voe serve exited: ${out}`);
        return /webhooks at https:\/\/127\.0\.0\.1:\d+/.test(out);
      },
      60_000,
      'voe serve listening',
    );
    (child as ChildProcess & { output?: () => string }).output = () => out;
    return child;
  }

  /**
   * What a deleted release namespace leaves of the chart (cluster-scoped objects, Roles in other
   * namespaces): removed, so that the next order installs afresh.
   */
  async function removeLeftovers(namespace: string): Promise<void> {
    const manifest = await helm.run([
      'template',
      'voe',
      join(repoRoot(), 'charts', CHART),
      '--namespace',
      namespace,
      '--set',
      'tracker.enable=true',
    ]);
    const api = KubernetesObjectApi.makeApiClient(cp.current.kubeConfig);
    for (const object of parseAllDocuments(manifest.stdout)
      .map((doc) => doc.toJS() as Rendered | null)
      .filter((o): o is Rendered => o !== null && o.metadata?.namespace !== namespace)) {
      await api.delete(object).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
  }

  it('installed from the repository: the Addon’s image, the hooks’ certificates and caBundle, and a configuration owned by its namespace; with no webhook answering, voe refuses a grow (failurePolicy Fail)', async () => {
    await install('voe-a');
    const configuration = await admission().readValidatingWebhookConfiguration({ name: 'voe' });
    const namespace = await core().readNamespace({ name: 'voe-a' });
    assert.deepStrictEqual(
      configuration.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
      [['Namespace', 'voe-a', namespace.metadata!.uid]],
    );
    assert.isNotEmpty(configuration.webhooks![0]!.clientConfig.caBundle);
    assert.match((await grow()) ?? 'admitted', /failed calling webhook \\?"pvc-resize\.voe/);
  });

  it('with no webhook answering, grows in kube-system, the release namespace, webhook.excludedNamespaces and a namespace labelled storage.voe.dev/webhook=disabled are not sent to voe', async () => {
    await core().createNamespace({
      body: {
        metadata: { name: 'vms-opted-out', labels: { 'storage.voe.dev/webhook': 'disabled' } },
      },
    });
    // webhook.excludedNamespaces as the Addon's values add it: the configuration as upgraded.
    const values = await helm.writeValues({
      ...addonValues,
      webhook: { excludedNamespaces: ['vms-excluded'] },
    });
    const upgraded = await helm.run([
      'upgrade',
      'voe',
      `voe/${CHART}`,
      '--namespace',
      'voe-a',
      '--no-hooks',
      '-f',
      values,
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(upgraded.code, 0, upgraded.stderr);
    await ensureNamespaces(cp.current.kubeConfig, ['vms-excluded']);
    for (const namespace of ['kube-system', 'voe-a', 'vms-excluded', 'vms-opted-out']) {
      await setUpGrowableClaim(namespace);
      assert.isUndefined(await grow(namespace), namespace);
    }
    assert.match((await grow()) ?? 'admitted', /failed calling webhook \\?"pvc-resize\.voe/);
  });

  it('helm uninstall (what disabling the Addon runs): no configuration left, a grow is not refused by voe', async () => {
    const uninstalled = await helm.run([
      'uninstall',
      'voe',
      '--namespace',
      'voe-a',
      '--no-hooks',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(uninstalled.code, 0, uninstalled.stderr);
    assert.isFalse(await configurationLeft());
    assert.isUndefined(await grow());
  });

  for (const [order, withAddon] of [
    ['the namespace deleted', false],
    ['the Addon and its namespace deleted together', true],
  ] as const) {
    it(`${order}: the stopping webhook removes the configuration; a grow is not refused by voe`, async () => {
      const namespace = withAddon ? 'voe-c' : 'voe-b';
      try {
        await install(namespace);
        const webhook = await serve(namespace);
        if (withAddon) {
          await serverSideApply(cp.current.kubeConfig, {
            apiVersion: 'harvesterhci.io/v1beta1',
            kind: 'Addon',
            metadata: { name: CHART, namespace },
            spec: { repo: url, chart: CHART, version: '0.1.0', enabled: true, valuesContent: '' },
          } as KubernetesObject);
          await cp.current.kubeConfig.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
            group: 'harvesterhci.io',
            version: 'v1beta1',
            plural: 'addons',
            namespace,
            name: CHART,
          });
        }
        await core().deleteNamespace({ name: namespace });
        // The namespace controller deletes the pods; the kubelet sends SIGTERM.
        const stopped = new Promise((resolve) => webhook.once('exit', resolve));
        webhook.kill('SIGTERM');
        await stopped;
        const output = (webhook as ChildProcess & { output: () => string }).output();
        assert.match(output, /removed the webhook configuration/);
        assert.isFalse(await configurationLeft());
        assert.isUndefined(await grow());
      } finally {
        await removeLeftovers(namespace);
      }
    });
  }

  it('a webhook stopping for any other reason (rollout, eviction) keeps the configuration', async () => {
    await install('voe-d');
    const webhook = await serve('voe-d');
    const stopped = new Promise((resolve) => webhook.once('exit', resolve));
    webhook.kill('SIGTERM');
    await stopped;
    assert.isTrue(await configurationLeft());
    const uninstalled = await helm.run([
      'uninstall',
      'voe',
      '--namespace',
      'voe-d',
      '--no-hooks',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(uninstalled.code, 0, uninstalled.stderr);
    assert.isUndefined(await grow());
  });

  it("the namespace deleted while no webhook stops to remove the configuration: kube-controller-manager's namespace controller and garbage collector delete it, the namespace owning it; a grow is not refused by voe", async () => {
    const namespace = 'voe-e';
    try {
      await install(namespace);
      assert.match((await grow()) ?? 'admitted', /failed calling webhook \\?"pvc-resize\.voe/);
      const kcm = startTool(dir, 'kube-controller-manager', await kubeControllerManager(), [
        `--kubeconfig=${kubeconfig}`,
        '--controllers=namespace-controller,garbage-collector-controller',
        '--leader-elect=false',
        '--secure-port=0',
      ]);
      try {
        await core().deleteNamespace({ name: namespace });
        await eventually(
          async () => !(await configurationLeft()),
          120_000,
          'the garbage collector deleting the configuration voe',
        );
      } catch (error) {
        throw new Error(`${String(error)}\n${await logTail(kcm)}`, { cause: error });
      } finally {
        await kcm.stop(5_000);
      }
      assert.isUndefined(await grow());
    } finally {
      await removeLeftovers(namespace);
    }
  });
});

/** kube-controller-manager of the control plane's Kubernetes release (built once, cached). */
function kubeControllerManager(): Promise<string> {
  return buildGuestTool(
    GUEST_TOOLS.find((tool) => tool.binary === 'kube-controller-manager')!,
    {
      cacheDir: testCacheDir(),
      onProgress: (line) => process.stderr.write(`${line}\n`),
    },
  );
}

/** `object` without its Helm hook annotations: applied as a plain object. */
function stripHook(object: Rendered): KubernetesObject {
  const annotations = { ...(object.metadata?.annotations ?? {}) };
  for (const key of Object.keys(annotations))
    if (key.startsWith('helm.sh/hook')) delete annotations[key];
  return { ...object, metadata: { ...object.metadata, annotations } };
}
