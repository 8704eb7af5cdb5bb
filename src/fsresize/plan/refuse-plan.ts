import { FsResizeError, type FsResizeErrorCode } from '../fsresize-error.js';
import type { GrowPlan } from './grow-plan.js';

/** A plan that refuses with the error `code` and `message` (and `details`, when given). */
export function refusePlan(
  code: FsResizeErrorCode,
  message: string,
  details?: Record<string, unknown>,
): GrowPlan {
  return { kind: 'refuse', error: new FsResizeError(code, message, details ? { details } : {}) };
}
