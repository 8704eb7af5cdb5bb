/**
 * The commands of docs/install.md and docs/troubleshooting.md, run as the docs write them: each
 * fenced block marked `<!-- tested: SCENARIO -->` is split into argument arrays (no shell,
 * test/support/docs/split-command-lines.ts), its documented placeholders are replaced from
 * PLACEHOLDERS, and each command runs with execFile from the clone's root, with kubectl (built from
 * the guest tools' Go module), helm and voe on PATH and KUBECONFIG naming a real kube-apiserver
 * with Harvester's CRDs (the Addon among them). Scenarios run in SCENARIOS' order, each block of a
 * scenario in file order; what Harvester's controllers would do between them (the Addon's status,
 * a webhook configuration left behind, a Deployment's status, pods and their kubelet's events, a
 * Certificate's conditions, a stuck expansion) is done by the scenario's `before`, what they do
 * while the commands run by its `meanwhile` (the Job controller and the kubelet running helm's
 * hook Jobs: test/support/charts/job-actor.ts; the namespace controller), and its `after` checks
 * what the commands did. The blocks no test runs here say why (test/unit/docs/tested-docs.test.ts).
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  StorageV1Api,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import {
  ensureNamespaces,
  serverSideApply,
  useChartControlPlane,
} from '../../support/charts/cluster.js';
import { playJobs } from '../../support/charts/job-actor.js';
import { HOST_CHART, oneOf, repoRoot, useHelm, type Helm } from '../../support/charts/render.js';
import { splitCommandLines } from '../../support/docs/split-command-lines.js';
import { testedDocBlocks, type DocBlock } from '../../support/docs/tested-docs.js';
import { testCacheDir } from '../../support/use-control-plane.js';
import { VOE_MAIN } from '../../support/run-voe.js';
import { buildGuestTool, GUEST_TOOLS } from '../../../src/controlplane/guest-tools/index.js';
import { isNotFound } from '../../../src/kube/index.js';

const REGISTRY = 'registry.example.com/voe';
const ADDON = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'addons' } as const;
const LONGHORN_VOLUMES = { group: 'longhorn.io', version: 'v1beta2', plural: 'volumes' } as const;
const EXPANSIONS = {
  group: 'storage.voe.dev',
  version: 'v1alpha1',
  plural: 'volumeexpansions',
} as const;
/** The PVC, its PV (Longhorn's volume of the same name) the troubleshooting commands look at. */
const CLAIM = {
  namespace: 'default',
  name: 'disk-0',
  volume: 'pvc-6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b',
};
const LONGHORN_ERROR = 'insufficient storage on replica disks';
const GUEST_NS = 'guest-1';

interface Context {
  url: string;
  kubeconfig: string;
  manifests: string;
  /** The directory of the guest-cluster CSI driver's host manifests and its kubeconfigs. */
  guest: string;
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
  // The PVC troubleshooting.md and install.md look at, and its Longhorn volume.
  ['NAMESPACE', CLAIM.namespace],
  ['SOME-PVC', CLAIM.name],
  ['VOLUME-HANDLE', CLAIM.volume],
  // The guest-cluster CSI driver: the guest cluster's namespace on Harvester, Harvester's
  // kubeconfig, the rendered manifests and the identities' kubeconfigs (this API server is both).
  ['GUEST-NS', GUEST_NS],
  ['HARVESTER-KUBECONFIG', context.kubeconfig],
  ['voe-csi-host-manifests', join(context.guest, 'voe-csi-host-manifests')],
  ['voe-csi.kubeconfig', join(context.guest, 'voe-csi.kubeconfig')],
  ['voe-csi-node.kubeconfig', join(context.guest, 'voe-csi-node.kubeconfig')],
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
      guest: join(dir, 'guest'),
    };
    await mkdir(context.guest);
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

  const namespaceGone = (name: string) =>
    core()
      .readNamespace({ name })
      .then(
        () => false,
        (error: unknown) => isNotFound(error),
      );

  /**
   * kube-controller-manager's namespace controller for `name`, until the commands are done: once
   * the namespace is being deleted, it deletes what the namespace holds, then removes the
   * `kubernetes` finalizer (pkg/controller/namespace/deletion/namespaced_resources_deleter.go,
   * (*namespacedResourcesDeleter).Delete: deleteAllContent, then finalizeNamespace). The content
   * is what the commands here leave in it: Secrets, ConfigMaps, ServiceAccounts, Jobs and Pods.
   */
  const playNamespaceController =
    (name: string) =>
    async (done: () => boolean): Promise<void> => {
      while (!done()) {
        const namespace = await core()
          .readNamespace({ name })
          .catch((error: unknown) => {
            if (isNotFound(error)) return undefined;
            throw error;
          });
        if (!namespace) return;
        if (namespace.metadata?.deletionTimestamp) {
          await deleteNamespaceContent(name);
          await finalizeNamespace(namespace);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
  const deleteNamespaceContent = async (namespace: string) => {
    await core().deleteCollectionNamespacedSecret({ namespace });
    await core().deleteCollectionNamespacedConfigMap({ namespace });
    await core().deleteCollectionNamespacedServiceAccount({ namespace });
    await core().deleteCollectionNamespacedPod({ namespace });
    await cp.current.kubeConfig
      .makeApiClient(BatchV1Api)
      .deleteCollectionNamespacedJob({ namespace, propagationPolicy: 'Background' });
  };
  const finalizeNamespace = (namespace: V1Namespace) =>
    core().replaceNamespaceFinalize({
      name: namespace.metadata!.name!,
      body: { ...namespace, spec: { finalizers: [] } },
    });

  /** The Helm section's install again, with its hook Jobs played (for the blocks that remove it). */
  const reinstallWithHelm = async () => {
    const install = blocks.find((block) => block.tested === 'helm-install')!;
    const actor = playJobs(cp.current, 'voe-system');
    try {
      for (const argv of commandsOf(install, PLACEHOLDERS(context)))
        await runCommand(install, argv, env);
    } finally {
      await actor.stop();
    }
    for (const run of actor.runs) assert.strictEqual(run.code, 0, `${run.job}: ${run.output}`);
  };

  /**
   * A pod of the webhook's Deployment as its ReplicaSet creates it (pkg/controller/controller_utils.go,
   * GetPodFromTemplate: the template's labels, annotations and spec, a generated name), bound to a
   * node as the scheduler binds it, and the container status its kubelet then writes
   * (pkg/kubelet/kubelet_pods.go, convertToAPIContainerStatuses: a container not started is
   * waiting, with the reason the kubelet has for it).
   */
  const createWebhookPod = async (waiting: { reason: string; message?: string }) => {
    const deployment = await cp.current.kubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: 'voe-system', name: 'voe-webhook' });
    const template = deployment.spec!.template;
    const pod = await core().createNamespacedPod({
      namespace: 'voe-system',
      body: {
        metadata: {
          generateName: 'voe-webhook-',
          labels: template.metadata?.labels,
          annotations: template.metadata?.annotations,
        },
        spec: { ...template.spec!, nodeName: 'node-1' },
      },
    });
    const container = template.spec!.containers[0]!;
    const body: V1Pod = {
      ...pod,
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: container.name,
            image: container.image!,
            imageID: '',
            ready: false,
            restartCount: 0,
            started: false,
            state: { waiting },
          },
        ],
      },
    };
    return await core().replaceNamespacedPodStatus({
      namespace: 'voe-system',
      name: pod.metadata!.name!,
      body,
    });
  };

  /**
   * The status kube-controller-manager's Deployment controller writes once every replica of the
   * template is updated and available (pkg/controller/deployment/sync.go, syncRolloutStatus with
   * calculateStatus; the conditions of pkg/controller/deployment/util/deployment_util.go:
   * Available MinimumReplicasAvailable, Progressing NewReplicaSetAvailable).
   */
  const writeDeploymentStatus = async () => {
    const apps = cp.current.kubeConfig.makeApiClient(AppsV1Api);
    const deployment = await apps.readNamespacedDeployment({
      namespace: 'voe-system',
      name: 'voe-webhook',
    });
    const replicas = deployment.spec!.replicas ?? 1;
    const now = new Date();
    await apps.replaceNamespacedDeploymentStatus({
      namespace: 'voe-system',
      name: 'voe-webhook',
      body: {
        ...deployment,
        status: {
          observedGeneration: deployment.metadata!.generation,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          conditions: [
            {
              type: 'Available',
              status: 'True',
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
              lastUpdateTime: now,
              lastTransitionTime: now,
            },
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: 'ReplicaSet "voe-webhook-7d9c8b6f5" has successfully progressed.',
              lastUpdateTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
    });
  };

  /**
   * A Longhorn StorageClass, a 10Gi PV of it and the PVC bound to it, as the CSI provisioner and
   * the PV controller leave them (pkg/controller/volume/persistentvolume/pv_controller.go,
   * bindVolumeToClaim then bindClaimToVolume: the PV's claimRef, then the PVC's volumeName, its
   * bind annotations, phase Bound and capacity), and Longhorn's Volume of the PV.
   */
  const createClaim = async () => {
    await cp.current.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
      body: {
        metadata: { name: 'longhorn-docs' },
        provisioner: 'driver.longhorn.io',
        allowVolumeExpansion: true,
        parameters: { numberOfReplicas: '3', dataEngine: 'v1' },
      },
    });
    const claim = await core().createNamespacedPersistentVolumeClaim({
      namespace: CLAIM.namespace,
      body: {
        metadata: { name: CLAIM.name },
        spec: {
          accessModes: ['ReadWriteMany'],
          volumeMode: 'Block',
          storageClassName: 'longhorn-docs',
          resources: { requests: { storage: '10Gi' } },
        },
      },
    });
    await core().createPersistentVolume({
      body: {
        metadata: {
          name: CLAIM.volume,
          annotations: { 'pv.kubernetes.io/provisioned-by': 'driver.longhorn.io' },
        },
        spec: {
          accessModes: ['ReadWriteMany'],
          volumeMode: 'Block',
          capacity: { storage: '10Gi' },
          storageClassName: 'longhorn-docs',
          persistentVolumeReclaimPolicy: 'Delete',
          csi: { driver: 'driver.longhorn.io', volumeHandle: CLAIM.volume },
          claimRef: {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            namespace: CLAIM.namespace,
            name: CLAIM.name,
            uid: claim.metadata!.uid!,
          },
        },
      },
    });
    const bound = await core().replaceNamespacedPersistentVolumeClaim({
      namespace: CLAIM.namespace,
      name: CLAIM.name,
      body: {
        ...claim,
        metadata: {
          ...claim.metadata,
          annotations: {
            'pv.kubernetes.io/bind-completed': 'yes',
            'pv.kubernetes.io/bound-by-controller': 'yes',
            'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io',
          },
        },
        spec: { ...claim.spec!, volumeName: CLAIM.volume },
      },
    });
    await core().replaceNamespacedPersistentVolumeClaimStatus({
      namespace: CLAIM.namespace,
      name: CLAIM.name,
      body: {
        ...bound,
        status: { phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage: '10Gi' } },
      },
    });
    // longhorn-manager's CSI CreateVolume: a Volume named as the volume handle.
    await objects().createNamespacedCustomObject({
      ...LONGHORN_VOLUMES,
      namespace: 'longhorn-system',
      body: {
        apiVersion: 'longhorn.io/v1beta2',
        kind: 'Volume',
        metadata: { name: CLAIM.volume },
        spec: {
          size: String(10 * 2 ** 30),
          numberOfReplicas: 3,
          frontend: 'blockdev',
          dataEngine: 'v1',
        },
      },
    });
  };

  /**
   * The claim grown to 20Gi, and what follows when Longhorn cannot grow it: external-resizer's
   * Resizing condition (pkg/controller/controller.go, markPVCResizeInProgress), Longhorn's
   * lastExpansionError on its Volume, and the VolumeExpansion voe's tracker keeps for it
   * (src/vmwatcher: named by expansionName, Stuck with LonghornExpansionFailed).
   */
  const stageStuckExpansion = async () => {
    const claim = await core().readNamespacedPersistentVolumeClaim(CLAIM);
    const grown = await core().replaceNamespacedPersistentVolumeClaim({
      ...CLAIM,
      body: {
        ...claim,
        spec: { ...claim.spec!, resources: { requests: { storage: '20Gi' } } },
      },
    });
    const now = new Date();
    await core().replaceNamespacedPersistentVolumeClaimStatus({
      ...CLAIM,
      body: {
        ...grown,
        status: {
          ...grown.status,
          conditions: [
            { type: 'Resizing', status: 'True', lastProbeTime: now, lastTransitionTime: now },
          ],
          allocatedResources: { storage: '20Gi' },
          allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
        },
      },
    });
    const volume = (await objects().getNamespacedCustomObject({
      ...LONGHORN_VOLUMES,
      namespace: 'longhorn-system',
      name: CLAIM.volume,
    })) as Record<string, unknown>;
    await objects().replaceNamespacedCustomObjectStatus({
      ...LONGHORN_VOLUMES,
      namespace: 'longhorn-system',
      name: CLAIM.volume,
      body: {
        ...volume,
        status: {
          state: 'attached',
          expansionRequired: false,
          lastExpansionError: LONGHORN_ERROR,
          lastExpansionFailedAt: now.toISOString(),
        },
      },
    });
    const expansion = (await objects().createNamespacedCustomObject({
      ...EXPANSIONS,
      namespace: CLAIM.namespace,
      body: {
        apiVersion: 'storage.voe.dev/v1alpha1',
        kind: 'VolumeExpansion',
        metadata: { name: `${CLAIM.name}-20gi` },
        spec: { pvcName: CLAIM.name, vmName: 'vm-0', from: '10Gi', to: '20Gi' },
      },
    })) as Record<string, unknown>;
    await objects().replaceNamespacedCustomObjectStatus({
      ...EXPANSIONS,
      namespace: CLAIM.namespace,
      name: `${CLAIM.name}-20gi`,
      body: {
        ...expansion,
        status: {
          phase: 'Stuck',
          waitingFor: 'user',
          reason: 'LonghornExpansionFailed',
          message: `Longhorn failed to expand the volume of ${CLAIM.namespace}/${CLAIM.name}: ${LONGHORN_ERROR}.`,
          lastTransitionTime: now.toISOString(),
        },
      },
    });
  };

  /**
   * Step 2 of the guest-cluster section: a kubeconfig for each identity, with the guest cluster's
   * namespace as its context's, the Harvester API server's URL and CA, and a token of the
   * ServiceAccount (here from the TokenRequest API: no token controller fills the token Secrets).
   */
  const writeGuestKubeconfigs = async () => {
    const cluster = cp.current.kubeConfig.getCurrentCluster()!;
    for (const name of ['voe-csi', 'voe-csi-node']) {
      const { status } = await core().createNamespacedServiceAccountToken({
        namespace: GUEST_NS,
        name,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      });
      const kubeconfig = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'harvester',
            cluster: {
              server: cluster.server,
              'certificate-authority-data':
                cluster.caData ?? (await readFile(cluster.caFile!)).toString('base64'),
            },
          },
        ],
        users: [{ name, user: { token: status!.token } }],
        contexts: [{ name, context: { cluster: 'harvester', user: name, namespace: GUEST_NS } }],
        'current-context': name,
      };
      await writeFile(join(context.guest, `${name}.kubeconfig`), JSON.stringify(kubeconfig));
    }
  };

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
      // kubectl delete waits until the namespace is gone (the Addon, its only object here, is
      // deleted with it).
      meanwhile: playNamespaceController('voe-system'),
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
      name: 'rollout',
      before: async () => {
        await writeDeploymentStatus();
        await createClaim();
      },
      after: async ([rollout, check]) => {
        assert.include(rollout!.stdout, 'successfully rolled out');
        assert.include(check!.stdout, 'allowed');
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
      name: 'helm-alone',
      // kubectl delete waits until the namespace is gone.
      meanwhile: playNamespaceController('voe-system'),
      after: async () => {
        assert.isUndefined(await configuration(), 'the configuration voe is deleted');
        assert.isTrue(await namespaceGone('voe-system'), 'the namespace is deleted');
      },
    },
    {
      name: 'stuck-expansion',
      // Staged while voe is not installed (after helm-alone): the grow is voe's webhook's to
      // admit, and no webhook pod runs here to answer.
      before: stageStuckExpansion,
      after: async ([pvc, expansions, volume]) => {
        assert.match(pvc!.stdout, /^Name:\s+disk-0$/m);
        assert.match(pvc!.stdout, /Resizing\s+True/);
        assert.match(
          expansions!.stdout,
          /^default\s+disk-0-20gi\s+disk-0\s+vm-0\s+10Gi\s+20Gi\s+Stuck\s+user\s.*LonghornExpansionFailed$/m,
        );
        assert.include(volume!.stdout, `lastExpansionError: ${LONGHORN_ERROR}`);
      },
    },
    {
      name: 'helm-uninstall',
      before: reinstallWithHelm,
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
      name: 'uninstall-leftovers',
      // kubectl delete waits until the namespace is gone (the CRD's own finalizer runs in the API
      // server).
      meanwhile: playNamespaceController('voe-system'),
      after: async () => {
        const crdGone = await cp.current.kubeConfig
          .makeApiClient(ApiextensionsV1Api)
          .readCustomResourceDefinition({ name: 'volumeexpansions.storage.voe.dev' })
          .then(
            () => false,
            (error: unknown) => isNotFound(error),
          );
        assert.isTrue(crdGone, 'the CRD is deleted');
        assert.isTrue(await namespaceGone('voe-system'), 'the namespace is deleted');
      },
    },
    {
      name: 'plain-kubectl',
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
    {
      name: 'certificate-jobs',
      // The Jobs made from the CronJob by plain-kubectl and install-checks.
      after: async ([jobs]) => {
        assert.match(jobs!.stdout, /^voe-certs-init\s/m);
        assert.match(jobs!.stdout, /^voe-certs-now\s/m);
      },
    },
    {
      name: 'webhook-pods',
      before: async () => {
        const deployment = await cp.current.kubeConfig
          .makeApiClient(AppsV1Api)
          .readNamespacedDeployment({ namespace: 'voe-system', name: 'voe-webhook' });
        const image = deployment.spec!.template.spec!.containers[0]!.image!;
        // pkg/kubelet/images/image_manager.go, EnsureImageExists: the back-off after a failed pull.
        await createWebhookPod({
          reason: 'ImagePullBackOff',
          message: `Back-off pulling image ${JSON.stringify(image)}`,
        });
        const creating = await createWebhookPod({ reason: 'ContainerCreating' });
        const volume = deployment.spec!.template.spec!.volumes!.find(
          (v) => v.secret?.secretName === 'voe-webhook-tls',
        )!;
        // The kubelet's volume manager, when the Secret of a volume is missing
        // (pkg/volume/util/operationexecutor/operation_generator.go, GenerateMountVolumeFunc:
        // the event FailedMount with MountVolume.SetUp's error; pkg/volume/secret/secret.go,
        // SetUpAt: the Secret's get answered not found).
        await core().createNamespacedEvent({
          namespace: 'voe-system',
          body: {
            metadata: { generateName: `${creating.metadata!.name!}.` },
            involvedObject: {
              apiVersion: 'v1',
              kind: 'Pod',
              namespace: 'voe-system',
              name: creating.metadata!.name!,
              uid: creating.metadata!.uid!,
            },
            type: 'Warning',
            reason: 'FailedMount',
            message: `MountVolume.SetUp failed for volume "${volume.name}" : secret "voe-webhook-tls" not found`,
            source: { component: 'kubelet', host: 'node-1' },
            firstTimestamp: new Date(),
            lastTimestamp: new Date(),
            count: 1,
          },
        });
      },
      after: async ([labelled, all]) => {
        const deployment = await cp.current.kubeConfig
          .makeApiClient(AppsV1Api)
          .readNamespacedDeployment({ namespace: 'voe-system', name: 'voe-webhook' });
        const image = deployment.spec!.template.spec!.containers[0]!.image!;
        const images = [...labelled!.stdout.matchAll(/^\s+Image:\s+(\S+)$/gm)].map((m) => m[1]);
        assert.include(images, image);
        assert.include(labelled!.stdout, 'ImagePullBackOff');
        assert.include(all!.stdout, 'ContainerCreating');
        assert.include(all!.stdout, 'secret "voe-webhook-tls" not found');
      },
    },
    {
      name: 'certificate',
      // The chart's Certificate with certificates.mode cert-manager, and the conditions
      // cert-manager's readiness controller writes while the Secret is missing
      // (pkg/controller/certificates/readiness: Ready False with the trigger policy's reason,
      // pkg/controller/certificates/trigger/policies: SecretDoesNotExist).
      before: async () => {
        const certificate = oneOf(
          await helm.template(HOST_CHART, {
            namespace: 'voe-system',
            values: { certificates: { mode: 'cert-manager' } },
          }),
          'Certificate',
          'voe-webhook',
        );
        await serverSideApply(cp.current.kubeConfig, {
          ...certificate,
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'False',
                reason: 'DoesNotExist',
                message: 'Issuing certificate as Secret does not exist',
                lastTransitionTime: new Date().toISOString(),
                observedGeneration: 1,
              },
            ],
          },
        } as typeof certificate);
      },
      after: async ([describe]) => {
        assert.match(describe!.stdout, /^Name:\s+voe-webhook$/m);
        assert.include(describe!.stdout, 'Issuing certificate as Secret does not exist');
      },
    },
    {
      name: 'guest-host',
      // The namespace of the guest cluster's VMs, which Harvester has.
      before: () => ensureNamespaces(cp.current.kubeConfig, [GUEST_NS]),
      after: async () => {
        const accounts = await core().listNamespacedServiceAccount({ namespace: GUEST_NS });
        assert.includeMembers(
          accounts.items.map((account) => account.metadata!.name!),
          ['voe-csi', 'voe-csi-node'],
        );
      },
    },
    {
      name: 'guest-install',
      before: writeGuestKubeconfigs,
      after: async () => {
        for (const [secret, file] of [
          ['voe-csi-host-kubeconfig', 'voe-csi.kubeconfig'],
          ['voe-csi-node-host-kubeconfig', 'voe-csi-node.kubeconfig'],
        ] as const) {
          const { data } = await core().readNamespacedSecret({
            namespace: 'kube-system',
            name: secret,
          });
          assert.strictEqual(
            Buffer.from(data!['kubeconfig']!, 'base64').toString(),
            await readFile(join(context.guest, file), 'utf8'),
          );
        }
        const storageClass = await cp.current.kubeConfig
          .makeApiClient(StorageV1Api)
          .readStorageClass({ name: 'harvester' });
        assert.isTrue(storageClass.allowVolumeExpansion);
        await cp.current.kubeConfig
          .makeApiClient(StorageV1Api)
          .readCSIDriver({ name: 'driver.harvesterhci.io' });
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
