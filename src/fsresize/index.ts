export {
  DEFAULT_LOCK_DIRECTORY,
  DEFAULT_LOCK_WAIT_MS,
  createFsResizer,
  type FsResizer,
} from './create-fs-resizer.js';
export { createDeviceLock } from './run/device-lock.js';
export type { BlockDeviceId, BlockDevices } from './model/block-devices.js';
export { deviceNodeOf } from './devices/device-node-of.js';
export { createSystemBlockDevices } from './devices/system-block-devices.js';
export { asVoeError, isFsResizeError } from './model/fsresize-error.js';
export type { MountTable } from './model/mount-table.js';
export { createMountinfoTable } from './mounts/create-mountinfo-table.js';
export { visibleMountAt } from './mounts/visible-mount-at.js';
export { isAnonymousMount, type MountEntry } from './parse/parse-mountinfo.js';
export { formatBytes } from './plan/format-bytes.js';
export { fsckExitText } from './model/fsck-exit-meaning.js';
export type { GrowResult } from './model/inspection.js';
export { abandonedCalls } from './devices/abandoned-calls.js';
export type { CommandRunner } from './model/command-runner.js';
export { MAX_TIMEOUT_MS, createExecFileRunner } from './run/exec-file-runner.js';
