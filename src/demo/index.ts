export { DemoError } from './demo-error.js';
export type { ExpansionResult } from './follow-expansions.js';
export {
  DEMO_CONFIGURATION_NAME,
  runDemo,
  type DemoReport,
  type DemoStepResult,
} from './run-demo.js';
export { VM_DEMO, runVmDemo, type VmDemoReport } from './run-vm-demo.js';
export { surveyExpansions } from './survey-expansions.js';
export type { SurveyEntry } from './survey-rows.js';
