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
export { isAnonymousMount, parseMountinfo, type MountEntry } from './parse/parse-mountinfo.js';
export { formatBytes } from './plan/format-bytes.js';
export { fsckExitText } from './model/fsck-exit-meaning.js';
export type { GrowResult } from './model/inspection.js';
export { abandonedCalls } from './devices/abandoned-calls.js';
export type { CommandRunner } from './model/command-runner.js';
export { MAX_TIMEOUT_MS, createExecFileRunner } from './run/exec-file-runner.js';
export { planGuestGrowth, type GuestGrowthTarget } from './plan/plan-guest-growth.js';
export {
  planWindowsGrowth,
  type WindowsGrowthTarget,
  type WindowsLayout,
} from './plan/plan-windows-growth.js';
export { renderGuestCommands } from './plan/render-guest-commands.js';
export type {
  GuestGrowthPlan,
  GuestReading,
  GuestStep,
  StepCheck,
} from './model/guest-growth-plan.js';
export type { GuestFilesystemSize, GuestLayout } from './model/guest-layout.js';
export { GuestGrowthError, GuestGrowthErrorCode } from './model/guest-growth-error.js';
export { parseLsblkJson, type LsblkDevice } from './parse/parse-lsblk-json.js';
export { parseSfdiskJson, type PartitionTable } from './parse/parse-sfdisk-json.js';
export { parseLvmReports } from './parse/parse-lvm-reports.js';
export { parseDumpe2fsHeader } from './parse/parse-dumpe2fs-header.js';
export { parseXfsStatfs } from './parse/parse-xfs-statfs.js';
export { parseBtrfsDumpSuper } from './parse/parse-btrfs-dump-super.js';
export { parseGuestFsinfo, type GuestFsinfoEntry } from './parse/parse-guest-fsinfo.js';
export { physicalDriveNumber } from './parse/physical-drive-number.js';
export {
  parseWindowsDisks,
  parseWindowsPartitions,
  type WindowsDisk,
  type WindowsPartition,
} from './parse/parse-windows-storage.js';
