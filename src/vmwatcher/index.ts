export type {
  KubeVirt,
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
  VirtualMachine,
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
export type { GuestEvidence, GuestProbe, ProbeReading, ProbeTarget } from './guest-probe.js';
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
export { expansionName } from './expansion-name.js';
export { describeClaimTemplates } from './describe-claim-templates.js';
export { leanPod, leanPv, leanPvc, leanTrackedVmi, leanVm } from './lean-objects.js';
export {
  startTrackerCaches,
  EXPANSIONS_BY_PVC,
  PODS_BY_CREATOR,
  PODS_BY_OWNER,
  PODS_BY_UID,
  VMIS_BY_PVC,
  VMIS_BY_UID,
  VMS_BY_PVC,
  type StartedTrackerCaches,
  type StartTrackerCachesOptions,
  type TrackerCaches,
} from './tracker-caches.js';
export { createTrackerMetrics, type TrackerMetrics } from './tracker-metrics.js';
export {
  EventAction,
  EventReason,
  phaseEventReason,
  type EventReasonValue,
} from './event-reasons.js';
export { ExpansionTracker, type ExpansionTrackerOptions } from './expansion-tracker.js';
export {
  startTracker,
  DEFAULT_LEASE_NAME,
  DEFAULT_STUCK_AFTER_MS,
  DEFAULT_WORKERS,
  TRACKER_CONTROLLER,
  type RunningTracker,
  type StartTrackerOptions,
} from './start-tracker.js';
export { TrackerError, TrackerErrorCode } from './tracker-error.js';
export {
  ADDED_GATES_ANNOTATION,
  CREATED_BY_ANNOTATION,
  CREATED_BY_ENABLE,
  EXPAND_DISKS_GATE,
  defaultExpandSetting,
  planGate,
  planGateRemoval,
  planSetting,
  planSettingRemoval,
  withGateAdded,
  withGateRemoved,
  type GatePlan,
  type GateRemovalPlan,
  type SettingPlan,
  type SettingRemovalPlan,
} from './plan-enablement.js';
export {
  enableExpansion,
  disableExpansion,
  type EnablementOptions,
  type EnablementStep,
} from './enable-expansion.js';
export { formatAge, formatStatusTable, statusRow, type StatusRow } from './format-status.js';
export { listExpansions } from './list-expansions.js';
export { ExpansionActors } from './expansion-actors.js';
export * from './probe/index.js';
export * from './lab/index.js';
