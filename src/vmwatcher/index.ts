export {
  disableExpansion,
  enableExpansion,
  type EnablementOptions,
  type EnablementStep,
} from './enable-expansion.js';
export { ExpansionActors } from './expansion-actors.js';
export { expansionName } from './expansion-name.js';
export { Phase, type PhaseValue } from './expansion-phase.js';
export { parseDuration } from './format-duration.js';
export { formatStatusTable, statusRow, type StatusRow } from './format-status.js';
export type { GuestProbe } from './guest-probe.js';
export { installVmLab, installerPath } from './lab/install-vm-lab.js';
export type { LabDisk } from './lab/lab-domain.js';
export { startLabVm, type LabVm } from './lab/lab-vm.js';
export { startLibvirt, type LibvirtDaemons } from './lab/libvirt-daemons.js';
export { virtHandlerExpands } from './lab/virt-handler-actor.js';
export { listExpansions } from './list-expansions.js';
export {
  GUEST_PROBE_MODES,
  createGuestProbe,
  type GuestProbeMode,
} from './probe/create-guest-probe.js';
export { DEFAULT_PROBE_TIMEOUT_MS } from './probe/virsh-guest-probe.js';
export { StageReason, type StageReasonValue } from './stage-reason.js';
export type { HotplugVolume, LauncherVolume } from './staged-pods.js';
export {
  DEFAULT_LEASE_NAME,
  DEFAULT_WORKERS,
  TRACKER_CONTROLLER,
  startTracker,
  type RunningTracker,
} from './start-tracker.js';
export { TrackerError } from './tracker-error.js';
export type { Pod, TrackedVmi } from './tracker-objects.js';
export { VOLUME_EXPANSIONS, type VolumeExpansion } from './volume-expansion.js';
export { guestProbeNamespaceListed, parseGuestProbeNamespaces } from './guest-probe-namespaces.js';
