import { ADMISSION_API_VERSION, ADMISSION_REVIEW_KIND } from './parse-admission-review.js';
import type { AdmissionVerdict } from '../../admission/index.js';

/** The longest admission warning we send; kubectl prints them one per line. */
export const MAX_WARNING_LENGTH = 120;

export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_REVIEW_KIND;
  response: {
    uid: string;
    allowed: boolean;
    status?: {
      code: number;
      message: string;
      reason: string;
      details?: { causes: Array<{ reason: 'FieldValueInvalid'; message: string; field?: string }> };
    };
    warnings?: string[];
  };
}

/** Control characters make the API server drop a warning; keep text on one line and within the limit. */
function cleanWarning(warning: unknown): string {
  if (typeof warning !== 'string') return '';
  // eslint-disable-next-line no-control-regex
  const oneLine = warning.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const chars = Array.from(oneLine);
  return chars.length <= MAX_WARNING_LENGTH
    ? oneLine
    : `${chars.slice(0, MAX_WARNING_LENGTH - 1).join('')}…`;
}

/**
 * The AdmissionReview the API server expects back (HTTP 200 also when denying). A refusal carries
 * status {code, message, reason}; code defaults to 400 BadRequest (the API server's ToStatusErr
 * raises any code below 400 to 400). An Invalid refusal also carries one FieldValueInvalid cause, as Harvester's webhook
 * answers (the API server passes status details on to the client). Warnings are trimmed to MAX_WARNING_LENGTH characters; empty ones are dropped.
 */
export function toAdmissionReview(uid: string, verdict: AdmissionVerdict): AdmissionReviewResponse {
  const response: AdmissionReviewResponse['response'] = { uid, allowed: verdict.allowed === true };
  if (!response.allowed) {
    response.status = {
      code:
        Number.isInteger(verdict.code) &&
        (verdict.code as number) >= 400 &&
        (verdict.code as number) <= 599
          ? (verdict.code as number)
          : 400,
      message:
        typeof verdict.message === 'string' && verdict.message !== ''
          ? verdict.message
          : `denied (${String(verdict.decision)})`,
      reason:
        typeof verdict.reason === 'string' && verdict.reason !== '' ? verdict.reason : 'BadRequest',
    };
    if (response.status.reason === 'Invalid') {
      const field =
        typeof verdict.field === 'string' && verdict.field !== '' ? { field: verdict.field } : {};
      response.status.details = {
        causes: [{ reason: 'FieldValueInvalid', message: response.status.message, ...field }],
      };
    }
  }
  const warnings = Array.isArray(verdict.warnings)
    ? verdict.warnings.map(cleanWarning).filter((w) => w !== '')
    : [];
  if (warnings.length > 0) response.warnings = warnings;
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_REVIEW_KIND, response };
}
