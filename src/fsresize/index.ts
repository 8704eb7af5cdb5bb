export { abandonedCalls } from './abandoned-calls.js';
export type { BlockDeviceId, BlockDevices } from './block-devices.js';
export type { CommandRunner } from './command-runner.js';
export {
  DEFAULT_LOCK_DIRECTORY,
  DEFAULT_LOCK_WAIT_MS,
  createFsResizer,
  type FsResizer,
} from './create-fs-resizer.js';
export { createDeviceLock } from './device-lock.js';
export { deviceNodeOf } from './device-node-of.js';
export { MAX_TIMEOUT_MS, createExecFileRunner } from './exec-file-runner.js';
export { formatBytes } from './format-bytes.js';
export { fsckExitText } from './fsck-exit-meaning.js';
export { asVoeError, isFsResizeError } from './fsresize-error.js';
export type { GrowResult } from './inspection.js';
export { createMountinfoTable, type MountTable } from './mount-table.js';
export { isAnonymousMount, type MountEntry } from './parse-mountinfo.js';
export { createSystemBlockDevices } from './system-block-devices.js';
export { visibleMountAt } from './visible-mount-at.js';
