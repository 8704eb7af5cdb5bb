import { expandDisksState } from '../model/index.js';
import { HARVESTER_GATE_MESSAGE } from './resize-messages.js';
import type { ResizeCase, RuleJudgement } from './resize-case.js';
import { Decision } from './decision.js';

/**
 * Step 2: ExpandDisks effectively on (expandDisksState). A KubeVirt CR that is not there is an
 * internal error, as Harvester denies a failed cache read (docs/admission.md "Upstream facts"): no
 * PVC_EXPAND prefix, so its caller retries.
 */
export function expandDisksRule({ snapshot, options, stopAdvice }: ResizeCase): RuleJudgement {
  const kubeVirtKey = `${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  if (!snapshot.kubeVirt) {
    return {
      finding: {
        check: 'expand-disks',
        outcome: 'error',
        decision: Decision.KubevirtMissing,
        message:
          `internal error: KubeVirt CR ${kubeVirtKey} not found, so the ExpandDisks feature gate cannot be confirmed. ` +
          `Check that KubeVirt is installed there (or configure the add-on's KubeVirt location, --kubevirt), or ${stopAdvice}.`,
      },
    };
  }
  const gate = expandDisksState(snapshot.kubeVirt);
  if (gate.enabled) {
    return {
      finding: {
        check: 'expand-disks',
        outcome: 'pass',
        decision: Decision.Allowed,
        message: `${gate.why}.`,
      },
    };
  }
  return {
    finding: {
      check: 'expand-disks',
      outcome: 'refuse',
      decision: Decision.GateMissing,
      message:
        `${HARVESTER_GATE_MESSAGE}. ${gate.why} of KubeVirt ${kubeVirtKey}: add ExpandDisks to ` +
        `spec.configuration.developerConfiguration.featureGates (and remove it from disabledFeatureGates), or ${stopAdvice}.`,
    },
  };
}
