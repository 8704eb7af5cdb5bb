import { Phase, WaitingFor, type PhaseValue } from '../expansion-phase.js';
import { StageReason } from '../stage-reason.js';
import type { Verdict } from './stage-verdict.js';

/** No VMI runs the VM: the expansion completes at its next start (node: kubelet's part is still to do). Pure. */
export function stoppedVerdict(
  underlyingPhase: PhaseValue,
  vmName: string | undefined,
  claim: string,
  stage: 'node' | 'vm',
): Verdict {
  const what = vmName ? `The VM ${vmName}` : `No running VM uses ${claim}; the VM`;
  return {
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.VMStopped,
    message:
      `${what} is not running, so ${stage === 'node' ? 'no pod mounts the volume for kubelet to grow its filesystem' : 'KubeVirt cannot grow its disk online'}. ` +
      `The expansion completes at the next start (${stage === 'node' ? 'kubelet grows the filesystem when the pod mounts it, then ' : ''}KubeVirt grows the disk before the guest boots): start the VM.`,
    progressPhase: underlyingPhase,
  };
}
