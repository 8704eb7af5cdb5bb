import { LONGHORN_DRIVER } from '../settings/index.js';
import { versionAtLeast } from '../model/index.js';
import { decideLonghorn, longhornFacts, type LonghornFacts } from './decide-longhorn.js';
import { warning } from './resize-messages.js';
import type { ResizeCase, RuleJudgement } from './resize-case.js';
import type { ResizeFinding } from './resize-snapshot.js';
import { Decision } from './decision.js';

/** KubeVirt resizes a running VM's block disk to the device's real capacity from this release (kubevirt#16365: LUKS). */
export const BLOCK_RESIZE_TO_CAPACITY_SINCE = 'v1.8.0';

/**
 * Step 5: the Longhorn data engine (decideLonghorn), for a PVC any of whose provisioners is
 * Longhorn's. An encrypted Block-mode volume of a running VM that passes is admitted (Harvester
 * admits it), with a note and a warning when KubeVirt is too old to show the new size before a
 * restart.
 */
export function longhornRule(resize: ResizeCase): RuleJudgement {
  const { snapshot, options, pvcKey, stopAdvice } = resize;
  if (!resize.provisioners.includes(LONGHORN_DRIVER)) {
    return {
      finding: {
        check: 'longhorn',
        outcome: 'skip',
        decision: Decision.Allowed,
        message: 'Not a Longhorn volume.',
      },
    };
  }
  const facts = longhornFacts(
    snapshot.longhorn,
    snapshot.storageClass ?? snapshot.claimStorageClass,
  );
  const finding = decideLonghorn(facts, pvcKey, stopAdvice, options, snapshot.pvc.spec?.volumeName);
  if (!hiddenUntilRestart(resize, facts, finding)) return { finding };
  const kubeVirtVersion = snapshot.kubeVirt?.status?.observedKubeVirtVersion;
  return {
    finding: {
      ...finding,
      // (A Filesystem-mode disk is a disk.img KubeVirt grows itself; only Block-mode disks are resized to the PVC size.)
      message:
        finding.message +
        ` It is encrypted, and KubeVirt ${kubeVirtVersion ?? '(version unknown)'} resizes a running VM's disk to the PVC size, ` +
        `which a LUKS device is smaller than ("Cannot grow device files", fixed in KubeVirt ${BLOCK_RESIZE_TO_CAPACITY_SINCE}): ` +
        'the VM sees the new size after a restart.',
    },
    warning: warning(
      `Encrypted volume: KubeVirt before ${BLOCK_RESIZE_TO_CAPACITY_SINCE} cannot grow it in the running VM; it shows after a restart`,
    ),
  };
}

/** An admitted encrypted Block-mode volume of a running VM on a KubeVirt that cannot grow it in place. */
function hiddenUntilRestart(
  { snapshot, users, volumeMode }: ResizeCase,
  facts: LonghornFacts,
  finding: ResizeFinding,
): boolean {
  return (
    finding.outcome === 'pass' &&
    facts.encrypted &&
    volumeMode === 'Block' &&
    users.running.length > 0 &&
    !versionAtLeast(
      snapshot.kubeVirt?.status?.observedKubeVirtVersion,
      BLOCK_RESIZE_TO_CAPACITY_SINCE,
    )
  );
}
