import { FsResizeError, type FsResizeErrorCode } from '../model/fsresize-error.js';
import type { GrowPlan } from '../model/grow-plan.js';

/** A plan that refuses with the error `code` and `message` (and `details`, when given). */
export function refusePlan(
  code: FsResizeErrorCode,
  message: string,
  details?: Record<string, unknown>,
): GrowPlan {
  return { kind: 'refuse', error: new FsResizeError(code, message, details ? { details } : {}) };
}
