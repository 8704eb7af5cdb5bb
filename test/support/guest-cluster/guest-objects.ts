import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, requestJson, resourcePath } from '../../../src/kube/index.js';
import { GUEST_NODE_NAME } from './guest-cluster.js';

const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const VAS = { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments' };
const SNAPSHOTS = { group: 'snapshot.storage.k8s.io', version: 'v1', plural: 'volumesnapshots' };
const SNAPSHOT_CONTENTS = { ...SNAPSHOTS, plural: 'volumesnapshotcontents' };
const MERGE = 'application/merge-patch+json';
/** The guest namespace the tests' workloads live in. */
export const APP_NAMESPACE = 'default';

export interface GuestPvc {
  metadata: { name: string; uid: string; annotations?: Record<string, string> };
  spec: { volumeName?: string; resources: { requests: { storage: string } } };
  status?: {
    phase?: string;
    capacity?: { storage?: string };
    allocatedResources?: { storage?: string };
    allocatedResourceStatuses?: { storage?: string };
    conditions?: Array<{ type: string; status: string; message?: string }>;
  };
}
export interface GuestPv {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: { capacity: { storage: string }; csi: { driver: string; volumeHandle: string } };
  status?: { phase?: string };
}
export interface GuestNode {
  spec?: { taints?: Array<{ key: string; value?: string; effect: string }> };
}

export interface GuestVa {
  metadata: { name: string };
  spec: { nodeName: string; source: { persistentVolumeName?: string } };
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string> };
}

export interface GuestVolumeSnapshot {
  metadata: { name: string };
  status?: {
    boundVolumeSnapshotContentName?: string;
    readyToUse?: boolean;
    restoreSize?: string;
    error?: { message?: string };
  };
}
export interface GuestVolumeSnapshotContent {
  metadata: { name: string };
  status?: { snapshotHandle?: string; readyToUse?: boolean };
}

/** The guest cluster's API as a user and its workloads use it. */
export class GuestObjects {
  constructor(private readonly kc: KubeConfig) {}

  /** A PVC (ReadWriteOnce unless `accessModes` says otherwise); restored from the VolumeSnapshot `fromSnapshot` when given. */
  createPvc(
    name: string,
    size: string,
    storageClassName: string,
    fromSnapshot?: string,
    accessModes: readonly string[] = ['ReadWriteOnce'],
  ): Promise<GuestPvc> {
    return requestJson<GuestPvc>(this.kc, {
      method: 'POST',
      path: resourcePath({ ...PVCS, namespace: APP_NAMESPACE }),
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name },
        spec: {
          accessModes,
          storageClassName,
          resources: { requests: { storage: size } },
          ...(fromSnapshot
            ? {
                dataSource: {
                  apiGroup: 'snapshot.storage.k8s.io',
                  kind: 'VolumeSnapshot',
                  name: fromSnapshot,
                },
              }
            : {}),
        },
      },
    });
  }

  /** A VolumeSnapshot of `claim` on the VolumeSnapshotClass `className`. */
  createVolumeSnapshot(name: string, claim: string, className: string): Promise<unknown> {
    return requestJson(this.kc, {
      method: 'POST',
      path: resourcePath({ ...SNAPSHOTS, namespace: APP_NAMESPACE }),
      body: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshot',
        metadata: { name },
        spec: {
          volumeSnapshotClassName: className,
          source: { persistentVolumeClaimName: claim },
        },
      },
    });
  }

  /** A VolumeSnapshotClass of the driver (deletionPolicy Delete) with `parameters`, as docs/csi.md shows one. */
  async createVolumeSnapshotClass(name: string, parameters: Record<string, string>): Promise<void> {
    await requestJson(this.kc, {
      method: 'POST',
      path: resourcePath({ ...SNAPSHOTS, plural: 'volumesnapshotclasses' }),
      body: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotClass',
        metadata: { name },
        driver: 'driver.harvesterhci.io',
        deletionPolicy: 'Delete',
        parameters,
      },
    });
  }

  volumeSnapshot(name: string): Promise<GuestVolumeSnapshot> {
    return requestJson<GuestVolumeSnapshot>(this.kc, {
      method: 'GET',
      path: resourcePath({ ...SNAPSHOTS, namespace: APP_NAMESPACE, name }),
    });
  }

  volumeSnapshotContent(name: string): Promise<GuestVolumeSnapshotContent> {
    return requestJson<GuestVolumeSnapshotContent>(this.kc, {
      method: 'GET',
      path: resourcePath({ ...SNAPSHOT_CONTENTS, name }),
    });
  }

  async deleteVolumeSnapshot(name: string): Promise<void> {
    await requestJson(this.kc, {
      method: 'DELETE',
      path: resourcePath({ ...SNAPSHOTS, namespace: APP_NAMESPACE, name }),
    });
  }

  pvc(name: string): Promise<GuestPvc> {
    return requestJson<GuestPvc>(this.kc, {
      method: 'GET',
      path: resourcePath({ ...PVCS, namespace: APP_NAMESPACE, name }),
    });
  }

  /** The user edits the PVC's storage request. */
  async request(name: string, size: string): Promise<void> {
    await requestJson(this.kc, {
      method: 'PATCH',
      path: resourcePath({ ...PVCS, namespace: APP_NAMESPACE, name }),
      body: { spec: { resources: { requests: { storage: size } } } },
      contentType: MERGE,
    });
  }

  pv(name: string): Promise<GuestPv> {
    return requestJson<GuestPv>(this.kc, { method: 'GET', path: resourcePath({ ...PVS, name }) });
  }

  node(name: string): Promise<GuestNode> {
    return requestJson<GuestNode>(this.kc, {
      method: 'GET',
      path: resourcePath({ group: '', version: 'v1', plural: 'nodes', name }),
    });
  }

  /** The bound PV of a PVC. */
  async pvOf(claim: string): Promise<GuestPv> {
    const pvc = await this.pvc(claim);
    if (!pvc.spec.volumeName) throw new Error(`PVC ${claim} is not bound`);
    return this.pv(pvc.spec.volumeName);
  }

  /** A pod of the guest node `nodeName` (no scheduler: bound by spec.nodeName) that mounts `claim` at /data. */
  createPod(
    name: string,
    claim: string,
    nodeName = GUEST_NODE_NAME,
  ): Promise<{ metadata: { uid: string } }> {
    return requestJson(this.kc, {
      method: 'POST',
      path: resourcePath({ ...PODS, namespace: APP_NAMESPACE }),
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: {
          nodeName,
          containers: [
            {
              name: 'app',
              image: 'registry.invalid/app:test',
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
          volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
        },
      },
    });
  }

  async deletePod(name: string): Promise<void> {
    await requestJson(this.kc, {
      method: 'DELETE',
      path: resourcePath({ ...PODS, namespace: APP_NAMESPACE, name }),
    });
  }

  async deletePvc(name: string): Promise<void> {
    await requestJson(this.kc, {
      method: 'DELETE',
      path: resourcePath({ ...PVCS, namespace: APP_NAMESPACE, name }),
    });
  }

  /** Whether the object at `path` is gone. */
  async gone(kind: 'pod' | 'pvc' | 'pv', name: string): Promise<boolean> {
    const ref =
      kind === 'pv'
        ? { ...PVS, name }
        : { ...(kind === 'pod' ? PODS : PVCS), namespace: APP_NAMESPACE, name };
    return requestJson(this.kc, { method: 'GET', path: resourcePath(ref) }).then(
      () => false,
      (e: unknown) => {
        if (isNotFound(e)) return true;
        throw e;
      },
    );
  }

  /** The VolumeAttachments of a PV. */
  async attachmentsOf(pvName: string): Promise<GuestVa[]> {
    const list = await requestJson<{ items: GuestVa[] }>(this.kc, {
      method: 'GET',
      path: resourcePath(VAS),
    });
    return list.items.filter((va) => va.spec.source.persistentVolumeName === pvName);
  }

  async createStorageClass(name: string, parameters: Record<string, string>): Promise<void> {
    await requestJson(this.kc, {
      method: 'POST',
      path: '/apis/storage.k8s.io/v1/storageclasses',
      body: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name },
        provisioner: 'driver.harvesterhci.io',
        allowVolumeExpansion: true,
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
        parameters,
      },
    });
  }
}

/**
 * The guest PV and PVC of a volume harvester-csi-driver provisioned, as the external-provisioner
 * beside it wrote them (controller.go Provision): the provisioned-by annotation, the deletion
 * protection finalizer (HonorPVReclaimPolicy), the driver, the host PVC name as the volume
 * handle, the volume attributes (that provisioner's identity, `<start ms>-<rand>-<driver>`, then
 * the volume context: harvester-csi-driver's StorageClass `harvester` has no parameters),
 * claimRef; bound by the PV binder.
 */
export async function createHarvesterVolume(
  kc: KubeConfig,
  claim: string,
  volumeHandle: string,
  size: string,
  fsType: string,
): Promise<void> {
  await requestJson(kc, {
    method: 'POST',
    path: resourcePath(PVS),
    body: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name: volumeHandle,
        annotations: { 'pv.kubernetes.io/provisioned-by': 'driver.harvesterhci.io' },
        finalizers: ['external-provisioner.volume.kubernetes.io/finalizer'],
      },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'harvester',
        volumeMode: 'Filesystem',
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace: APP_NAMESPACE,
          name: claim,
        },
        csi: {
          driver: 'driver.harvesterhci.io',
          volumeHandle,
          fsType,
          volumeAttributes: {
            'storage.kubernetes.io/csiProvisionerIdentity':
              '1733500000000-4242-driver.harvesterhci.io',
          },
        },
      },
    },
  });
  await requestJson(kc, {
    method: 'POST',
    path: resourcePath({ ...PVCS, namespace: APP_NAMESPACE }),
    body: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'harvester',
        volumeName: volumeHandle,
        resources: { requests: { storage: size } },
      },
    },
  });
}
