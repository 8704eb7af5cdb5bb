import { EXPAND_VALIDATION_SETTING_NAME } from '../../settings/index.js';
import type { VolumeLocks } from '../csi/volume-locks.js';
import type { HostResolver } from '../host/host-resolver.js';

/** The Harvester Setting whose value is the Harvester version (decides the hotplug mode). */
export const SERVER_VERSION_SETTING = 'server-version';

export interface ControllerTimeouts {
  /** How long ControllerExpandVolume waits for the host capacity when the call's deadline is later (or unset). */
  expandMs: number;
  /**
   * How long ControllerExpandVolume waits for a host PVC that neither grows nor carries an
   * infeasible mark (hosts before Kubernetes 1.32 write none) before it answers
   * CSI_HOST_NOT_GROWING, a code external-resizer treats as final for that call: below the
   * chart's resizer timeout (sidecars.resizer.timeout, 1m50s), so the answer comes before its
   * deadline.
   */
  stalledMs: number;
  /** How long ControllerPublishVolume waits for the hotplug (Harvester's driver: 15 s). */
  hotplugMs: number;
  /** How long ControllerUnpublishVolume waits for the unplug. */
  unplugMs: number;
  /**
   * How long ControllerPublishVolume waits for a Block volume's host VolumeAttachments to settle
   * on the VMI's host node (Harvester's driver: 60 s); never past the call's deadline.
   */
  attachmentMs: number;
}

export const DEFAULT_CONTROLLER_TIMEOUTS: ControllerTimeouts = {
  expandMs: 110_000,
  stalledMs: 100_000,
  hotplugMs: 15_000,
  unplugMs: 15_000,
  attachmentMs: 60_000,
};

export interface ControllerDeps {
  hosts: HostResolver;
  /** The host StorageClass of new volumes when their StorageClass names none; the host's default otherwise. */
  hostStorageClass: string | undefined;
  /** The host's expansion Setting; csi-online-expand-validation. */
  settingName: string;
  locks: VolumeLocks;
  timeouts: ControllerTimeouts;
}

export const DEFAULT_SETTING_NAME = EXPAND_VALIDATION_SETTING_NAME;
