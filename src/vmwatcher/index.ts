export {
  disableExpansion,
  enableExpansion,
  type EnablementOptions,
  type EnablementStep,
} from './enable-expansion.js';
export { expansionName } from './expansion-name.js';
export { expectedGuestBytes } from './expected-guest-bytes.js';
export { Phase, type PhaseValue } from './expansion-phase.js';
export { parseDuration } from './format-duration.js';
export { formatStatusTable, statusRow, type StatusRow } from './format-status.js';
export type { GuestProbe } from './guest-probe.js';
export { listExpansions } from './list-expansions.js';
export {
  GUEST_PROBE_MODES,
  createGuestProbe,
  virshTransportOf,
  type GuestProbeMode,
} from './probe/create-guest-probe.js';
export { agentFilesystemGrower, virshAgentOf } from './probe/agent-filesystem-grower.js';
export type { GuestFilesystemGrower } from './guest-filesystem-grower.js';
export { launcherUser } from './probe/launcher-libvirt-uri.js';
export { virshGuestAgent } from './probe/virsh-guest-agent.js';
export { VirshGuestProbe } from './probe/virsh-guest-probe.js';
export { domainName, windowsGuest } from './probe/vmi-disk.js';
export { physicalDriveOfDisk } from './probe/physical-drive-of-disk.js';
export { agentFilesystemList } from './probe/filesystem-list.js';
export { activeLauncher } from './volume-pods.js';
export { LOCAL_LIBVIRT_URI } from './probe/local-virsh.js';
export { DEFAULT_PROBE_TIMEOUT_MS } from './probe/virsh-guest-probe.js';
export {
  parseAgentReturn,
  parseExecPid,
  parseExecStatus,
  type ExecStatus,
} from './probe/virsh-output.js';
export { StageReason, type StageReasonValue } from './stage-reason.js';
export {
  DEFAULT_LEASE_NAME,
  DEFAULT_WORKERS,
  TRACKER_CONTROLLER,
  startTracker,
  type RunningTracker,
} from './start-tracker.js';
export { TrackerError } from './tracker-error.js';
export { VOLUME_EXPANSIONS, type VolumeExpansion } from './volume-expansion.js';
export { guestProbeNamespaceListed, parseGuestProbeNamespaces } from './guest-probe-namespaces.js';
