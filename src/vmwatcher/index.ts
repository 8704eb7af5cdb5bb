export type {
  LiveMeta,
  MigrationState,
  PersistentVolume,
  Pod,
  PodContainer,
  PodVolume,
  PvcCondition,
  PvcInfo,
  TrackedPvc,
  TrackedVmi,
  TrackedVolumeStatus,
} from './tracker-objects.js';
export {
  Phase,
  PHASES,
  FINAL_PHASES,
  OUTCOME_PHASES,
  WaitingFor,
  isPhase,
  type PhaseValue,
  type WaitingForValue,
} from './expansion-phase.js';
export { StageReason, STUCK_REASONS, type StageReasonValue } from './stage-reason.js';
export {
  VOLUME_EXPANSION_API_VERSION,
  VOLUME_EXPANSION_GROUP,
  VOLUME_EXPANSION_KIND,
  VOLUME_EXPANSION_PLURAL,
  VOLUME_EXPANSION_VERSION,
  VOLUME_EXPANSIONS,
  PVC_LABEL,
  type ObservedSizes,
  type VolumeExpansion,
  type VolumeExpansionStatus,
  type VolumePods,
} from './volume-expansion.js';
export { readResizeState, type ResizeState, type ResizeStatus } from './read-resize-state.js';
export {
  activeLauncher,
  claimHold,
  hotplugPodsOf,
  launcherPodsOf,
  volumeHolders,
  CREATED_BY_LABEL,
  HOTPLUG_POD,
  KUBEVIRT_POD_LABEL,
  KUBEVIRT_PODS_SELECTOR,
  LAUNCHER_POD,
  type ClaimHold,
  type VolumeHolders,
} from './volume-pods.js';
export {
  expectedGuestBytes,
  parseOverhead,
  DEFAULT_FILESYSTEM_OVERHEAD,
} from './expected-guest-bytes.js';
export type { GuestProbe, ProbeReading, ProbeTarget } from './guest-probe.js';
export { formatDuration, parseDuration } from './format-duration.js';
export { deriveStage, type Stage, type StageInput } from './derive-stage.js';
export { nextStatus, rfc3339 } from './next-status.js';
export {
  hotplugPod,
  launcherPod,
  persistentVolume,
  type HotplugVolume,
  type LauncherVolume,
} from './staged-pods.js';
