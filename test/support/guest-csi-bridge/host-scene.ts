import { writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { StagedCluster, KINDS } from '../../../src/demo/staged-cluster.js';
import { isAlreadyExists, requestJson, resourcePath } from '../../../src/kube/index.js';

/** The host namespace that holds the guest cluster's volumes and node VMs. */
export const GUEST_NAMESPACE = 'guests';
/** The guest node: its VM (and VMI) on the host. */
export const GUEST_NODE = 'guest-node-1';
/** Its MAC address on the host's VMI (for node-id discovery). */
export const GUEST_NODE_MAC = '52:54:00:6b:3c:01';
/** A host StorageClass whose provisioner the Setting validates (Harvester's default: Longhorn). */
export const VALIDATED_CLASS = 'longhorn';
/** A host StorageClass whose provisioner the Setting does not validate. */
export const UNVALIDATED_CLASS = 'nfs';

export const SETTING_NAME = 'csi-online-expand-validation';
/** The host VolumeSnapshotClass of Longhorn's snapshots, as Harvester's csi-driver-config default names it. */
export const HOST_SNAPSHOT_CLASS = 'longhorn-snapshot';
/** Harvester's default of the Setting csi-driver-config (harvester/harvester pkg/settings/settings.go). */
export const CSI_DRIVER_CONFIG_DEFAULT =
  '{"driver.longhorn.io":{"volumeSnapshotClassName":"longhorn-snapshot","backupVolumeSnapshotClassName":"longhorn"}}';

/**
 * The host cluster a guest cluster runs on: the namespace, two StorageClasses (Longhorn,
 * default; NFS), the csi-online-expand-validation and csi-driver-config Settings as Harvester writes them, the
 * `server-version` Setting (`serverVersion`, v1.8.0 unless told: declarative hotplug), KubeVirt
 * with ExpandDisks, and the guest node's VM (Running) and VMI.
 */
export async function stageHostScene(
  kubeConfig: KubeConfig,
  options: { serverVersion?: string } = {},
): Promise<StagedCluster> {
  const cluster = new StagedCluster(kubeConfig);
  const ignoreExisting = (error: unknown): void => {
    if (!isAlreadyExists(error)) throw error;
  };
  await cluster.ensureNamespace(GUEST_NAMESPACE);
  await cluster.ensureNamespace('harvester-system');
  await cluster.ensureNamespace('longhorn-system');
  for (const [name, provisioner, isDefault] of [
    [VALIDATED_CLASS, 'driver.longhorn.io', true],
    [UNVALIDATED_CLASS, 'nfs.csi.k8s.io', false],
  ] as const) {
    await cluster.storage
      .createStorageClass({
        body: {
          metadata: {
            name,
            ...(isDefault
              ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
              : {}),
          },
          provisioner,
          allowVolumeExpansion: true,
          reclaimPolicy: 'Delete',
          volumeBindingMode: 'Immediate',
        },
      })
      .catch(ignoreExisting);
  }
  await cluster
    .createCustom(KINDS.settings, {
      metadata: { name: SETTING_NAME },
      default: '{"driver.longhorn.io":true}',
      value: '',
    })
    .catch(ignoreExisting);
  await cluster
    .createCustom(KINDS.settings, {
      metadata: { name: 'csi-driver-config' },
      default: CSI_DRIVER_CONFIG_DEFAULT,
      value: '',
    })
    .catch(ignoreExisting);
  await cluster
    .createCustom(KINDS.settings, {
      metadata: { name: 'server-version' },
      default: '',
      value: options.serverVersion ?? 'v1.8.0',
    })
    .catch(ignoreExisting);
  await cluster
    .createCustom(KINDS.kubeVirts, {
      metadata: { name: 'kubevirt', namespace: 'harvester-system' },
      spec: {
        configuration: {
          developerConfiguration: { featureGates: ['HotplugVolumes', 'ExpandDisks'] },
        },
      },
      status: { phase: 'Deployed', observedKubeVirtVersion: 'v1.7.0' },
    })
    .catch(ignoreExisting);
  await cluster
    .createCustom(KINDS.vms, {
      metadata: { name: GUEST_NODE, namespace: GUEST_NAMESPACE },
      spec: {
        runStrategy: 'Always',
        template: {
          spec: {
            domain: { devices: { disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }] } },
            volumes: [
              { name: 'rootdisk', persistentVolumeClaim: { claimName: `${GUEST_NODE}-root` } },
            ],
          },
        },
      },
      status: { printableStatus: 'Running', ready: true },
    })
    .catch(ignoreExisting);
  await cluster.createCustom(KINDS.vmis, guestNodeVmi()).catch(ignoreExisting);
  return cluster;
}

/** The guest node's VMI as KubeVirt reports it running: its host node, its MAC, its root disk. */
export function guestNodeVmi(): Record<string, unknown> {
  return {
    metadata: { name: GUEST_NODE, namespace: GUEST_NAMESPACE },
    spec: { domain: { devices: {} } },
    status: {
      phase: 'Running',
      nodeName: 'harvester-1',
      interfaces: [{ name: 'default', mac: GUEST_NODE_MAC }],
      volumeStatus: [{ name: 'rootdisk', target: 'vda', phase: 'Ready' }],
    },
  };
}

/**
 * The host's VolumeSnapshotClass of Longhorn's in-cluster snapshots (`longhorn-snapshot`, as
 * Harvester ships it: driver.longhorn.io, deletionPolicy Delete, `type: snap`). Needs the
 * snapshot CRDs (snapshot-crds.ts).
 */
export async function stageHostSnapshotClass(kubeConfig: KubeConfig): Promise<void> {
  await stageLonghornSnapshotClass(kubeConfig, HOST_SNAPSHOT_CLASS, 'snap');
}

/** A host VolumeSnapshotClass of Longhorn's (driver.longhorn.io, deletionPolicy Delete) of Longhorn's snapshot `type` (snap, bak); one already there is kept. */
export async function stageLonghornSnapshotClass(
  kubeConfig: KubeConfig,
  name: string,
  type: string,
): Promise<void> {
  await requestJson(kubeConfig, {
    method: 'POST',
    path: resourcePath({
      group: 'snapshot.storage.k8s.io',
      version: 'v1',
      plural: 'volumesnapshotclasses',
    }),
    body: {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotClass',
      metadata: { name },
      driver: 'driver.longhorn.io',
      deletionPolicy: 'Delete',
      parameters: { type },
    },
  }).catch((error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
  });
}

/** `kubeConfig` with its current context's namespace set (as Harvester's cloud-provider kubeconfig), written to `file` (mode 0600). */
export async function writeHostKubeconfig(
  kubeConfig: KubeConfig,
  file: string,
  namespace = GUEST_NAMESPACE,
): Promise<KubeConfig> {
  const copy = new KubeConfig();
  copy.loadFromString(kubeConfig.exportConfig());
  const current = copy.getCurrentContext();
  copy.contexts = copy.contexts.map((context) =>
    context.name === current ? { ...context, namespace } : context,
  );
  await writeFile(file, copy.exportConfig(), { mode: 0o600 });
  return copy;
}
