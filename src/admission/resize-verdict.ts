import type { ResizeCase, RuleJudgement } from './resize-case.js';
import type { ResizeDecision } from './resize-snapshot.js';
import { Decision } from './decision.js';

/**
 * The verdict on a growth from every rule's judgement, in Harvester's order: with no running VM
 * it is allowed offline (the first finding says why; no warnings); else the first refusal or
 * internal error decides (422 Invalid, 500 InternalError); else it is allowed online. Every
 * finding is listed either way.
 */
export function resizeVerdict(resize: ResizeCase, judgements: RuleJudgement[]): ResizeDecision {
  const findings = judgements.map((judgement) => judgement.finding);
  if (resize.users.running.length === 0) {
    return {
      allowed: true,
      code: 200,
      message: findings[0]?.message ?? '',
      warnings: [],
      decision: Decision.AllowedOffline,
      findings,
    };
  }
  const warnings = judgements.flatMap((judgement) =>
    judgement.warning === undefined ? [] : [judgement.warning],
  );
  const blocking = findings.find(
    (finding) => finding.outcome === 'refuse' || finding.outcome === 'error',
  );
  if (blocking) {
    const internal = blocking.outcome === 'error';
    return {
      allowed: false,
      code: internal ? 500 : 422,
      reason: internal ? 'InternalError' : 'Invalid',
      message: blocking.message,
      warnings,
      decision: blocking.decision,
      findings,
    };
  }
  return {
    allowed: true,
    code: 200,
    message: `Online expansion of PVC ${resize.pvcKey} is allowed.`,
    warnings,
    decision: Decision.Allowed,
    findings,
  };
}
