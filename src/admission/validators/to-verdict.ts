import type { DecisionValue } from '../decision.js';
import type { ResizeDecision } from '../resize-snapshot.js';
import type { AdmissionVerdict } from './validator.js';

/** The AdmissionVerdict of a decision: refusals carry code, reason, message and the field judged; allowed ones only warnings. */
export function toVerdict(
  decision: Pick<
    ResizeDecision,
    'allowed' | 'code' | 'reason' | 'message' | 'warnings' | 'decision'
  >,
  field: string,
): AdmissionVerdict {
  const verdict: AdmissionVerdict = { allowed: decision.allowed, decision: decision.decision };
  if (!decision.allowed) {
    verdict.code = decision.code;
    if (decision.reason) verdict.reason = decision.reason;
    verdict.message = decision.message;
    verdict.field = field;
  }
  if (decision.warnings.length > 0) verdict.warnings = [...decision.warnings];
  return verdict;
}

/** A refusal for an internal error (500 InternalError); the message says so. */
export function internalErrorVerdict(decision: DecisionValue, message: string): AdmissionVerdict {
  return { allowed: false, code: 500, reason: 'InternalError', message, decision };
}

/** A policy refusal (422 Invalid) of the value of `field`. */
export function invalidVerdict(
  decision: DecisionValue,
  message: string,
  field: string,
): AdmissionVerdict {
  return { allowed: false, code: 422, reason: 'Invalid', message, decision, field };
}

export function allowedVerdict(decision: DecisionValue, warnings: string[] = []): AdmissionVerdict {
  return warnings.length > 0 ? { allowed: true, decision, warnings } : { allowed: true, decision };
}

export const NOT_SYNCED_MESSAGE =
  'internal error: the admission caches are not synced yet; retry in a moment.';
