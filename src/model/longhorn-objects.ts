import type { ObjectMeta } from './kubernetes-objects.js';

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
    /** Longhorn's own expansion state: a growth it has not finished, and its last failure. */
    expansionRequired?: boolean;
    lastExpansionError?: string;
    lastExpansionFailedAt?: string;
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
