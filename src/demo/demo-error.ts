import { VoeError } from '../errors/index.js';

/**
 * Errors of `voe demo`: `DEMO_USAGE` (bad arguments), `DEMO_API_FAILED` (the API server failed
 * a write the demo needs), `DEMO_TIMEOUT` (the webhook's caches did not see a change in time),
 * `DEMO_STOPPED` (asked to stop before its last step).
 */
export type DemoErrorCode = 'DEMO_USAGE' | 'DEMO_API_FAILED' | 'DEMO_TIMEOUT' | 'DEMO_STOPPED';

export class DemoError extends VoeError {
  declare readonly code: DemoErrorCode;

  constructor(
    code: DemoErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(code, message, options);
  }
}
