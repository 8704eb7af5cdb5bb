export {
  DEFAULT_LOCK_DIRECTORY,
  DEFAULT_LOCK_WAIT_MS,
  createFsResizer,
  type FsResizer,
} from './create-fs-resizer.js';
export { createDeviceLock } from './device-lock.js';
export type { BlockDeviceId, BlockDevices } from './devices/block-devices.js';
export { deviceNodeOf } from './devices/device-node-of.js';
export { createSystemBlockDevices } from './devices/system-block-devices.js';
export { asVoeError, isFsResizeError } from './fsresize-error.js';
export { createMountinfoTable, type MountTable } from './mounts/mount-table.js';
export { visibleMountAt } from './mounts/visible-mount-at.js';
export { isAnonymousMount, type MountEntry } from './parse/parse-mountinfo.js';
export { formatBytes } from './plan/format-bytes.js';
export { fsckExitText } from './plan/fsck-exit-meaning.js';
export type { GrowResult } from './plan/inspection.js';
export { abandonedCalls } from './run/abandoned-calls.js';
export type { CommandRunner } from './run/command-runner.js';
export { MAX_TIMEOUT_MS, createExecFileRunner } from './run/exec-file-runner.js';
