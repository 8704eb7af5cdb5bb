/**
 * The guest-agent runner of the fsresize core (docs/guest-growth.md "The runner"): read a guest's
 * layout through its guest agent, and run a plan's steps there. The agent is a port (GuestAgent);
 * its production adapter is virshGuestAgent in src/vmwatcher/probe.
 */
export type { GuestAgent, GuestCommand, GuestCommandResult } from './guest-agent.js';
export { GuestRunError, GuestRunErrorCode } from './guest-run-error.js';
export {
  DEFAULT_READ_TIMEOUT_MS,
  readGuestLayout,
  type GuestLayoutTarget,
} from './read/read-guest-layout.js';
export { readWindowsLayout } from './read/read-windows-layout.js';
export { readWindowsDisk } from './read/read-windows-disk.js';
export { readFilesystemTotalBytes } from './read/filesystem-total-bytes.js';
export {
  DEFAULT_STEP_TIMEOUT_MS,
  runGuestGrowth,
  type GuestGrowthRun,
  type GuestGrowthRunOptions,
  type GuestReadings,
  type GuestStepRecord,
} from './run/run-guest-growth.js';
export { linuxReadings } from './run/linux-readings.js';
export { windowsReadings } from './run/windows-readings.js';
export { proveWindowsGrowth, type GrowthProof } from './run/prove-windows-growth.js';
export { grownMountPoint, linuxGrowthProver } from './run/prove-linux-growth.js';
export { readingOf } from './run/reading-of.js';
export { VmLock } from './run/vm-lock.js';
export { vmiNotReady } from './target/vmi-readiness.js';
export { chooseVmiDisk, type VmiDiskChoice } from './target/choose-vmi-disk.js';
export { GUEST_GROW_EVENT_ACTION, GuestGrowEventReason } from './guest-grow-events.js';
