import { instanceOnlyNote, listVms } from './resize-messages.js';
import type { ResizeCase, RuleJudgement } from './resize-case.js';
import { Decision } from './decision.js';

/**
 * Step 1: a VM using the PVC and not Stopped (or a running VMI naming it). With one, the online
 * rules apply; without one, the growth is allowed offline (resizeVerdict), and this finding says why.
 */
export function runningVmRule({ pvcKey, users }: ResizeCase): RuleJudgement {
  if (users.running.length > 0) {
    return {
      finding: {
        check: 'vm',
        outcome: 'pass',
        decision: Decision.Online,
        message:
          `Running VM(s) use PVC ${pvcKey} (${listVms(users.running)}): online expansion rules apply.` +
          (users.instanceOnly.length > 0 ? ` ${instanceOnlyNote(users.instanceOnly)}` : ''),
      },
    };
  }
  return {
    finding: {
      check: 'vm',
      outcome: 'pass',
      decision: Decision.AllowedOffline,
      message:
        users.stopped.length === 0
          ? `No VirtualMachine uses PVC ${pvcKey} (in its volumes or volumeClaimTemplates annotation) and no running VirtualMachineInstance ` +
            "has it, so no running VM's disk is at stake: allowed without the online checks (a pod using it sees it grow as Kubernetes grows any volume)."
          : `Only stopped VMs use PVC ${pvcKey} (${listVms(users.stopped)}); it expands offline and the VM sees the size at next start.`,
    },
  };
}
