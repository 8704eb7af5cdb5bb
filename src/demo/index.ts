export { ExpansionActors } from './actors/expansion-actors.js';
export type { LauncherVolume } from './actors/staged-pods.js';
export { DemoError } from './demo-error.js';
export { installVmLab, installerPath } from './lab/install-vm-lab.js';
export { startLabVm, type LabVm } from './lab/lab-vm.js';
export { parseGuestDf, type GuestDf } from './lab/parse-guest-df.js';
export { startLibvirt } from './lab/libvirt-daemons.js';
export { virtHandlerExpands } from './lab/virt-handler-actor.js';
export type { ExpansionResult, TimelineEntry } from './follow-expansions.js';
export {
  DEMO_CONFIGURATION_NAME,
  runDemo,
  type DemoReport,
  type DemoStepResult,
} from './run-demo.js';
export { VM_DEMO, runVmDemo, type VmDemoReport } from './run-vm-demo.js';
export { surveyExpansions } from './survey-expansions.js';
export type { SurveyEntry } from './survey-rows.js';
