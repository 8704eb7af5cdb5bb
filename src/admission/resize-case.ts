import type { AdmissionOptions } from './admission-options.js';
import { provisionersToJudge } from './provisioners-to-judge.js';
import { stopVmsAdvice } from './resize-messages.js';
import type { ResizeFinding, ResizeSnapshot } from './resize-snapshot.js';
import { vmUsers, type VmUsers } from './vm-users.js';

/** A growth to judge: the snapshot, and what every rule of decideResize reads from it, worked out once. */
export interface ResizeCase {
  snapshot: ResizeSnapshot;
  options: AdmissionOptions;
  /** `namespace/name` of the PVC, as messages name it. */
  pvcKey: string;
  /**
   * Harvester's VMs (by their spec), and the running VMIs naming the PVC (a volume hotplugged
   * without --persist, or removed from the VM's spec while it runs, is on the VMI only).
   */
  users: VmUsers;
  /** The way out every refusal offers ("stop VM ns/a and expand offline"). */
  stopAdvice: string;
  /** spec.volumeMode; Filesystem when unset, as Kubernetes defaults it. */
  volumeMode: string;
  /** provisionersToJudge: Harvester's first; empty when it is unknown. */
  provisioners: string[];
}

/** What one rule found, and the admission warning it adds, if any. */
export interface RuleJudgement {
  finding: ResizeFinding;
  warning?: string;
}

/** One step of Harvester's order: a pure function of the case. */
export type ResizeRule = (resize: ResizeCase) => RuleJudgement;

/** The case of a growth of the snapshot's PVC. Pure. */
export function resizeCase(
  snapshot: ResizeSnapshot,
  options: AdmissionOptions,
  pvcKey: string,
): ResizeCase {
  const { pvc, oldPvc } = snapshot;
  const users = vmUsers(snapshot, pvc.metadata?.name ?? '');
  return {
    snapshot,
    options,
    pvcKey,
    users,
    stopAdvice: stopVmsAdvice(users.running),
    volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
    provisioners: provisionersToJudge(
      pvc,
      oldPvc,
      snapshot.storageClass,
      snapshot.claimStorageClass,
    ),
  };
}
