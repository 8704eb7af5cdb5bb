/**
 * The fields of core and storage Kubernetes objects that the components read, typed structurally
 * so that raw JSON (an AdmissionReview object, a list answer), informer objects and test objects
 * all satisfy them. Every field is optional: real objects omit what is unset.
 */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/**
 * Metadata with the fields of a live object the tracker reads besides. Kept apart from ObjectMeta:
 * the client's V1ObjectMeta types these timestamps as Date, while the JSON holds strings.
 */
export interface LiveMeta extends ObjectMeta {
  creationTimestamp?: string;
  deletionTimestamp?: string;
  generation?: number;
}

/** As the API requires it (apiVersion, kind, name and uid are always set). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** A PVC condition (Resizing, FileSystemResizePending, ControllerResizeError, NodeResizeError). */
export interface PvcCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** A PVC, with the status fields of an expansion (docs/tracker.md). */
export interface PersistentVolumeClaim {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    accessModes?: string[];
    resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
    storageClassName?: string | null;
    volumeMode?: string;
    volumeName?: string;
    [key: string]: unknown;
  };
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

export interface StorageClass {
  metadata?: ObjectMeta;
  provisioner?: string;
  parameters?: Record<string, string>;
  allowVolumeExpansion?: boolean;
}

export interface CsiDriver {
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
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

/** A pod: the tracker reads virt-launcher and hotplug attachment (hp-volume) pods. */
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

/** A core/v1 Event about a PVC (external-resizer and CSI drivers write these). */
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

/** A core/v1 Namespace (the tracker reads its annotations alone). */
export interface Namespace {
  apiVersion?: string;
  kind?: string;
  metadata?: LiveMeta;
}
