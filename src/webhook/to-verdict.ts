import type { ResizeDecision } from './resize-snapshot.js';
import type { AdmissionVerdict } from './validator.js';

/** The AdmissionVerdict of a decision: refusals carry code, reason and message; allowed ones only warnings. */
export function toVerdict(decision: Pick<ResizeDecision, 'allowed' | 'code' | 'reason' | 'message' | 'warnings' | 'decision'>): AdmissionVerdict {
  const verdict: AdmissionVerdict = { allowed: decision.allowed, decision: decision.decision };
  if (!decision.allowed) {
    verdict.code = decision.code;
    if (decision.reason) verdict.reason = decision.reason;
    verdict.message = decision.message;
  }
  if (decision.warnings.length > 0) verdict.warnings = [...decision.warnings];
  return verdict;
}

/** A refusal for an internal error (500 InternalError); the message says so. */
export function internalErrorVerdict(decision: string, message: string): AdmissionVerdict {
  return { allowed: false, code: 500, reason: 'InternalError', message, decision };
}

/** A policy refusal (422 Invalid). */
export function invalidVerdict(decision: string, message: string, warnings: string[] = []): AdmissionVerdict {
  const verdict: AdmissionVerdict = { allowed: false, code: 422, reason: 'Invalid', message, decision };
  if (warnings.length > 0) verdict.warnings = warnings;
  return verdict;
}

export function allowedVerdict(decision: string, warnings: string[] = []): AdmissionVerdict {
  return warnings.length > 0 ? { allowed: true, decision, warnings } : { allowed: true, decision };
}

export const NOT_SYNCED_MESSAGE = 'internal error: the admission caches are not synced yet; retry in a moment.';
