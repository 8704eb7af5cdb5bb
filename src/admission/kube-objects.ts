/**
 * The fields the admission decisions read, typed structurally so that both raw JSON (an
 * AdmissionReview object, a list call) and informer objects satisfy them. Every field is
 * optional: real objects omit what is unset.
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

/** As the API requires it (apiVersion, kind, name and uid are always set). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

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
  status?: { phase?: string; capacity?: Record<string, unknown>; [key: string]: unknown };
}

export interface StorageClass {
  metadata?: ObjectMeta;
  provisioner?: string;
  parameters?: Record<string, string>;
  allowVolumeExpansion?: boolean;
}

export interface VmVolume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; hotpluggable?: boolean; readOnly?: boolean };
  dataVolume?: { name?: string; hotpluggable?: boolean };
  [source: string]: unknown;
}

export interface VirtualMachine {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    runStrategy?: string;
    running?: boolean;
    template?: { spec?: { volumes?: VmVolume[]; [key: string]: unknown } };
    [key: string]: unknown;
  };
  status?: { printableStatus?: string; ready?: boolean; [key: string]: unknown };
}

/**
 * kubevirt.io/v1 VirtualMachineInstance: the running instance of a VM (same name, a controller
 * ownerReference to it), or a standalone one. `virtctl addvolume` without `--persist` (or the
 * VMI's `addvolume` subresource) adds a hotplugged volume to the VMI's spec only
 * (`persistentVolumeClaim.hotpluggable` / `dataVolume.hotpluggable` true); virt-controller records
 * each volume's state in `status.volumeStatus` (`hotplugVolume` for hotplugged ones,
 * `persistentVolumeClaimInfo.claimName` since KubeVirt v1.3).
 */
export interface VirtualMachineInstance {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { volumes?: VmVolume[]; [key: string]: unknown };
  status?: {
    /** Pending, Scheduling, Scheduled, Running, Succeeded, Failed, Unknown. */
    phase?: string;
    volumeStatus?: VmiVolumeStatus[];
    [key: string]: unknown;
  };
}

export interface VmiVolumeStatus {
  name?: string;
  /** Set for a hotplugged volume (attachPodName, attachPodUID). */
  hotplugVolume?: { attachPodName?: string; attachPodUID?: string; [key: string]: unknown };
  persistentVolumeClaimInfo?: { claimName?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface KubeVirt {
  metadata?: ObjectMeta;
  spec?: {
    configuration?: {
      developerConfiguration?: { featureGates?: string[]; disabledFeatureGates?: string[] };
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  status?: { observedKubeVirtVersion?: string; phase?: string; [key: string]: unknown };
}

/**
 * longhorn.io/v1beta2 Volume: named after the PV when Longhorn provisioned it; a statically
 * provisioned PV names it in `spec.csi.volumeHandle`, and Longhorn records the PV it is bound to
 * in `status.kubernetesStatus.pvName`.
 */
export interface LonghornVolume {
  metadata?: ObjectMeta;
  spec?: {
    dataEngine?: string;
    frontend?: string;
    encrypted?: boolean;
    size?: string;
    [key: string]: unknown;
  };
  status?: {
    state?: string;
    kubernetesStatus?: {
      pvName?: string;
      namespace?: string;
      pvcName?: string;
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
}

/** The label with which Longhorn names an Engine's Volume: longhornvolume=<volume>. */
export const LONGHORN_VOLUME_LABEL = 'longhornvolume';

/** longhorn.io/v1beta2 Engine (label longhornvolume=<volume>). */
export interface LonghornEngine {
  metadata?: ObjectMeta;
  spec?: { dataEngine?: string; volumeName?: string; frontend?: string; [key: string]: unknown };
}

/** longhorn.io/v1beta2 Setting: top-level `value`. */
export interface LonghornSetting {
  metadata?: ObjectMeta;
  value?: string;
}

export interface CsiDriver {
  metadata?: ObjectMeta;
  spec?: Record<string, unknown>;
}
