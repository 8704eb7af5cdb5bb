/** The fields of host objects the bridge reads and writes (the API server's JSON). */
import type { LiveMeta as ObjectMeta, VmiDisk as VmDisk, VmVolume } from '../../model/index.js';

export type { VmDisk, VmVolume };

export interface HostPvc {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    accessModes?: string[];
    volumeMode?: string;
    storageClassName?: string | null;
    volumeName?: string;
    resources?: { requests?: Record<string, string> };
    dataSource?: { apiGroup?: string; kind?: string; name?: string };
  };
  status?: {
    phase?: string;
    capacity?: Record<string, string>;
    allocatedResources?: Record<string, string>;
    allocatedResourceStatuses?: Record<string, string>;
    conditions?: Array<{ type?: string; status?: string; message?: string }>;
  };
}

export interface HostVm {
  metadata?: ObjectMeta;
  spec?: {
    template?: {
      spec?: {
        volumes?: VmVolume[];
        domain?: { devices?: { disks?: VmDisk[] } };
      };
    };
  };
  status?: { printableStatus?: string };
}

export interface VolumeStatus {
  name?: string;
  target?: string;
  phase?: string;
  reason?: string;
  message?: string;
  hotplugVolume?: { attachPodName?: string; attachPodUID?: string };
  persistentVolumeClaimInfo?: { claimName?: string; capacity?: Record<string, string> };
}

export interface HostVmi {
  metadata?: ObjectMeta;
  status?: {
    nodeName?: string;
    phase?: string;
    /** KubeVirt's record of the last live migration (virt-controller's handoff, virt-handler's end). */
    migrationState?: {
      sourceNode?: string;
      targetNode?: string;
      completed?: boolean;
      failed?: boolean;
      endTimestamp?: string;
    };
    interfaces?: Array<{ mac?: string; name?: string }>;
    volumeStatus?: VolumeStatus[];
  };
}

/** A storage.k8s.io/v1 VolumeAttachment of the host (cluster-scoped): one PV attached to one host node. */
export interface HostVolumeAttachment {
  metadata?: ObjectMeta;
  spec?: {
    attacher?: string;
    nodeName?: string;
    source?: { persistentVolumeName?: string };
  };
  status?: { attached?: boolean };
}

export interface HostPod {
  metadata?: ObjectMeta;
  spec?: { volumes?: Array<{ name?: string; persistentVolumeClaim?: { claimName?: string } }> };
}

export interface HostStorageClass {
  metadata?: ObjectMeta;
  provisioner?: string;
  allowVolumeExpansion?: boolean;
}

/** One JSON Patch (RFC 6902) operation. */
export type JsonPatchOperation =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** A snapshot.storage.k8s.io/v1 VolumeSnapshot of the host namespace. */
export interface HostVolumeSnapshot {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    source?: { persistentVolumeClaimName?: string; volumeSnapshotContentName?: string };
    volumeSnapshotClassName?: string;
  };
  status?: {
    boundVolumeSnapshotContentName?: string;
    creationTime?: string;
    readyToUse?: boolean;
    restoreSize?: string;
    error?: { message?: string; time?: string };
  };
}

/**
 * A harvesterhci.io/v1beta1 VolumeRemoteBackup: Harvester's backup of a PVC of its namespace to
 * the backup target (harvester/harvester pkg/apis/harvesterhci.io/v1beta1/volumeremotebackup.go).
 */
export interface HostRemoteBackup {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { type?: string; source?: string };
  status?: {
    handle?: string;
    csiProvider?: string;
    sourceSpec?: NonNullable<HostPvc['spec']>;
    success?: boolean;
    conditions?: HostCondition[];
  };
}

/** A harvesterhci.io/v1beta1 VolumeRemoteRestore: a PVC of its name restored from a VolumeRemoteBackup (`spec.from`, `<namespace>/<name>`). */
export interface HostRemoteRestore {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { type?: string; from?: string };
  status?: { success?: boolean; conditions?: HostCondition[] };
}

/** A condition of a Harvester object (harvesterhci.io/v1beta1 Condition). */
export interface HostCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/**
 * Harvester's NetworkFilesystem (harvesterhci.io/v1beta1, namespaced, in harvester-system), the
 * fields of harvester/networkfs-manager pkg/apis/harvesterhci.io/v1beta1/types.go the bridge
 * reads and writes: named after the Longhorn volume (the host PV), it asks networkfs-manager to
 * export that volume's NFS share (spec.desiredState) and reports where (status).
 */
export interface HostNetworkFilesystem {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    networkFSName?: string;
    /** Enabled, Disabled (also Enabling, Disabling, Unknown). */
    desiredState?: string;
    provisioner?: string;
    perferredNodes?: string;
  };
  status?: {
    /** The share's server address (the share manager's Service ClusterIP or endpoint address). */
    endpoint?: string;
    /** Enabled, Enabling, Disabling, Disabled, Unknown. */
    state?: string;
    /** The endpoint's: Ready, NotReady, Reconciling, Unknown. */
    status?: string;
    type?: string;
    /** Mount options recommended by the storage (the PV's `nfsOptions`); empty: the driver's default. */
    mountOpts?: string;
    conditions?: Array<{
      type?: string;
      status?: string;
      reason?: string;
      lastTransitionTime?: string;
    }>;
  };
}
