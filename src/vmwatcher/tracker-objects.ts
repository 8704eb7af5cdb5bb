/**
 * The fields the tracker reads, typed structurally (every field optional: real objects omit what
 * is unset), so that informer objects, list answers and test objects all satisfy them. The
 * admission types (src/admission) are widened with what only the tracker reads: a PVC's resize
 * state, a PV's capacity, a VMI's per-volume PVC sizes and active pods, the virt-launcher and
 * hotplug pods.
 */
import type {
  ObjectMeta,
  PersistentVolumeClaim,
  VirtualMachineInstance,
  VmiVolumeStatus,
  VmVolume,
} from '../admission/index.js';

export type {
  KubeVirt,
  ObjectMeta,
  OwnerReference,
  VirtualMachine,
  VmVolume,
} from '../admission/index.js';

/** Metadata with the fields of a live object the tracker reads besides the admission ones. */
export interface LiveMeta extends ObjectMeta {
  creationTimestamp?: string;
  deletionTimestamp?: string;
  generation?: number;
}

/** A PVC condition (Resizing, FileSystemResizePending, ControllerResizeError, NodeResizeError). */
export interface PvcCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** A PVC with the status fields of an expansion (reference/kubernetes-expansion.md §1). */
export interface TrackedPvc extends PersistentVolumeClaim {
  metadata?: LiveMeta;
  status?: {
    phase?: string;
    capacity?: Record<string, unknown>;
    conditions?: PvcCondition[];
    allocatedResources?: Record<string, unknown>;
    allocatedResourceStatuses?: Record<string, unknown>;
    [key: string]: unknown;
  };
}

export interface PersistentVolume {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
  spec?: {
    capacity?: Record<string, unknown>;
    claimRef?: { namespace?: string; name?: string; uid?: string; [key: string]: unknown };
    volumeMode?: string;
    csi?: { driver?: string; volumeHandle?: string };
    [key: string]: unknown;
  };
  status?: { phase?: string; [key: string]: unknown };
}

/** What virt-controller copies from the PVC into the VMI (kubevirt.md "VMI status"). */
export interface PvcInfo {
  claimName?: string;
  accessModes?: string[];
  volumeMode?: string;
  capacity?: Record<string, unknown>;
  requests?: Record<string, unknown>;
  filesystemOverhead?: string;
  preallocated?: boolean;
  [key: string]: unknown;
}

export interface TrackedVolumeStatus extends VmiVolumeStatus {
  target?: string;
  phase?: string;
  reason?: string;
  message?: string;
  persistentVolumeClaimInfo?: PvcInfo;
}

/** KubeVirt's VirtualMachineInstanceMigrationState (the fields the tracker reads). */
export interface MigrationState {
  sourcePod?: string;
  targetPod?: string;
  sourceNode?: string;
  targetNode?: string;
  completed?: boolean;
  failed?: boolean;
  startTimestamp?: string;
  endTimestamp?: string;
  [key: string]: unknown;
}

/** A VMI disk (spec.domain.devices.disks[]): the volume it shows, its serial and bus. */
export interface VmiDisk {
  /** The volume's name. */
  name?: string;
  serial?: string;
  disk?: { bus?: string; [key: string]: unknown };
  lun?: { bus?: string; [key: string]: unknown };
  cdrom?: { bus?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A VMI condition (AgentConnected, Ready...). */
export interface VmiCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  [key: string]: unknown;
}

export interface TrackedVmi extends VirtualMachineInstance {
  metadata?: LiveMeta;
  spec?: {
    volumes?: VmVolume[];
    domain?: { devices?: { disks?: VmiDisk[]; [key: string]: unknown }; [key: string]: unknown };
    [key: string]: unknown;
  };
  status?: {
    conditions?: VmiCondition[];
    phase?: string;
    nodeName?: string;
    /** Pod uid -> node name of the virt-launcher pods that run (or ran) the domain. */
    activePods?: Record<string, string>;
    migrationState?: MigrationState;
    volumeStatus?: TrackedVolumeStatus[];
    /** The guest agent's guest-get-osinfo (id "mswindows" on Windows), when an agent answered. */
    guestOSInfo?: { id?: string; name?: string; prettyName?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

export interface PodVolume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  [source: string]: unknown;
}

export interface PodContainer {
  name?: string;
  volumeMounts?: Array<{ name?: string; mountPath?: string }>;
  volumeDevices?: Array<{ name?: string; devicePath?: string }>;
  [key: string]: unknown;
}

/** A virt-launcher or hotplug attachment (hp-volume) pod. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
  spec?: {
    nodeName?: string;
    volumes?: PodVolume[];
    containers?: PodContainer[];
    [key: string]: unknown;
  };
  status?: { phase?: string; [key: string]: unknown };
}

/**
 * A Longhorn volume (`volumes.longhorn.io`, longhorn-system, named by the PV's
 * `spec.csi.volumeHandle`): its own expansion state (reference/kubevirt.md, Longhorn).
 */
export interface LonghornVolume {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
  status?: {
    expansionRequired?: boolean;
    lastExpansionError?: string;
    lastExpansionFailedAt?: string;
    kubernetesStatus?: { namespace?: string; pvcName?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

/** A core/v1 Event about a PVC (external-resizer writes these; reference/kubernetes-expansion.md §2). */
export interface ClaimEvent {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string;
  eventTime?: string;
}
