import type { FlatFieldsLogger } from '../log/index.js';
import type { ValidatorOutcome } from './run-validator.js';
import type { AdmissionReviewResponse } from './review/to-admission-review.js';
import type { AdmissionRequest } from '../admission/index.js';

/**
 * Logs an admission answer: an allowed request at debug, a refused one at info with its message,
 * a validator failure (refused with code 500) at error.
 */
export function logAdmissionAnswer(
  log: FlatFieldsLogger,
  request: AdmissionRequest,
  { verdict, error }: ValidatorOutcome,
  review: AdmissionReviewResponse,
): void {
  if (error === undefined && review.response.allowed) {
    if (log.isLevelEnabled('debug'))
      log.debug(
        {
          uid: request.uid,
          decision: verdict.decision,
          namespace: request.namespace,
          name: request.name,
        },
        'request allowed',
      );
    return;
  }
  const fields = {
    uid: request.uid,
    operation: request.operation,
    namespace: request.namespace,
    name: request.name,
    user: request.userInfo?.username,
    dryRun: request.dryRun,
    decision: verdict.decision,
    code: review.response.status?.code,
  };
  if (error !== undefined) {
    log.error(
      { ...fields, error: error instanceof Error ? error.message : String(error) },
      'validator failed; request refused with code 500',
    );
  } else {
    log.info({ ...fields, message: review.response.status?.message }, 'request refused');
  }
}
