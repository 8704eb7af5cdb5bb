export {
  createFsResizer,
  DEFAULT_LOCK_DIRECTORY,
  DEFAULT_LOCK_WAIT_MS,
  type FsResizer,
  type FsResizerOptions,
} from './create-fs-resizer.js';
export {
  SUPPORTED_FILESYSTEMS,
  isSupportedFilesystem,
  type SupportedFilesystem,
  type Inspection,
  type GrowOptions,
  type GrowResult,
  type PrecheckReport,
} from './inspection.js';
export { needsResize } from './needs-resize.js';
export { growTargetBytes, type GrowTargetFacts } from './grow-target-bytes.js';
export { EXT_32BIT_MAX_BLOCKS, extGrowTarget } from './ext-grow-target.js';
export { DEFAULT_PAGE_SIZE, systemPageSize } from './system-page-size.js';
export { parseAuxvPageSize } from './parse-auxv-page-size.js';
export { DEVICE_SIZE_SLACK_BYTES, planGrow } from './plan-grow.js';
export type { GrowPlan, PlanOptions } from './grow-plan.js';
export {
  asVoeError,
  FsResizeError,
  isFsResizeError,
  FsResizeErrorCode,
  type ToolReport,
} from './fsresize-error.js';
export type { CommandRunner, CommandResult, RunOptions } from './command-runner.js';
export {
  createExecFileRunner,
  DEFAULT_SEARCH_PATH,
  MAX_TIMEOUT_MS,
  type ExecFileRunnerOptions,
} from './exec-file-runner.js';
export { createMountinfoTable, type MountTable } from './mount-table.js';
export { isAnonymousMount, parseMountinfo, type MountEntry } from './parse-mountinfo.js';
export { chooseMount, type MountCandidate, type MountChoice } from './choose-mount.js';
export { visibleMountAt } from './visible-mount-at.js';
export { mountPathForms } from './mount-path-forms.js';
export type {
  BlockDevices,
  BlockDeviceId,
  DeviceOpener,
  DeviceUsers,
  LoopBacking,
  UnreadableProcess,
} from './block-devices.js';
export { followLoopBackings, type BackingFileOf, type LoopChain } from './follow-loop-backings.js';
export { readLoopTable, type LoopBackingTarget, type LoopEntry } from './loop-table.js';
export { refusesExclusiveOpen } from './refuses-exclusive-open.js';
export { showsOtherPidNamespace } from './shows-other-pid-namespace.js';
export {
  findDeviceOpeners,
  type DeviceOpenersFound,
  type FindDeviceOpenersOptions,
} from './find-device-openers.js';
export { majorMinorOf } from './major-minor-of.js';
export { deviceNodeOf, type DeviceNodeOfOptions } from './device-node-of.js';
export {
  createSystemBlockDevices,
  type SystemBlockDevicesOptions,
} from './system-block-devices.js';
export {
  createDeviceLock,
  type DeviceLock,
  type DeviceLockOptions,
  type ReleaseLock,
} from './device-lock.js';
export { fsckFailure, toolFailure } from './tool-failure.js';
export { formatBytes } from './format-bytes.js';
export { formatBytePair } from './format-byte-pair.js';
export { fsckExitMeaning, fsckExitText } from './fsck-exit-meaning.js';
export { parseBlkidExport, type BlkidSignature } from './parse-blkid-export.js';
export { parseExtSuperblock, type ExtSuperblock } from './parse-ext-superblock.js';
export { parseXfsSuperblock, type XfsGeometry } from './parse-xfs-superblock.js';
export { parseXfsStatfs } from './parse-xfs-statfs.js';
export { xfsGrowfsAfterBytes } from './xfs-growfs-after-bytes.js';
export { parseBtrfsDumpSuper, type BtrfsDeviceSize } from './parse-btrfs-dump-super.js';
export { abandonedCalls } from './abandoned-calls.js';
