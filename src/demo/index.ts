export type { ClusterState } from './cluster-state.js';
export { StagedCluster, KINDS, type CustomKind } from './staged-cluster.js';
export * from './staged-objects.js';
export {
  SCENARIO,
  pvNameOf,
  scenarioClaims,
  stageExpansionScenario,
} from './expansion-scenario.js';
export {
  DEMO_STEPS,
  type DemoStep,
  type DemoChange,
  type DemoOutcome,
  type DemoExpectation,
  type VoeRefusalDecision,
} from './demo-steps.js';
export {
  judgeStep,
  isVoeRefusal,
  refuserOf,
  webhookDeniedPrefix,
  VOE_PVC_RESIZE_WEBHOOK,
  type ApiAnswer,
  type VoeAnswer,
  type StepJudgement,
} from './judge-step.js';
export { VoeAnswers } from './voe-answers.js';
export {
  runDemo,
  DEMO_CONFIGURATION_NAME,
  type DemoReport,
  type DemoStepResult,
  type RunDemoOptions,
} from './run-demo.js';
export { DemoError, DemoErrorCode } from './demo-error.js';
export type { ExpansionResult, TimelineEntry } from './follow-expansions.js';
export { surveyExpansions, type SurveyOptions } from './survey-expansions.js';
export {
  surveyRows,
  surveyedNamespaces,
  type SurveyRow,
  type SurveyMissingClaim,
  type SurveyEntry,
} from './survey-rows.js';
export {
  stageLabMirror,
  LAB_PROVISIONER,
  LAB_STORAGE_CLASS,
  type LabMirrorOptions,
  type MirroredDisk,
} from './vm-lab-mirror.js';
export { runVmDemo, VM_DEMO, type RunVmDemoOptions, type VmDemoReport } from './run-vm-demo.js';
export { playsFor, type Play, type PlayTarget } from './expansion-plays.js';
export { followPlays, type AdmittedResize, type FollowOptions } from './follow-expansions.js';
