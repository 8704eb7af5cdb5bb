import { VoeError } from '../errors/index.js';

/**
 * Errors of `voe demo`: `DEMO_USAGE` (bad arguments), `DEMO_API_FAILED` (the API server failed a
 * write the demo needs), `DEMO_TIMEOUT` (the webhook's caches did not see a change in time, or the tracker did not lead),
 * `DEMO_STOPPED` (asked to stop before its last step); docs/errors.md, section "demo".
 */
export const DemoErrorCode = {
  Usage: 'DEMO_USAGE',
  ApiFailed: 'DEMO_API_FAILED',
  Timeout: 'DEMO_TIMEOUT',
  Stopped: 'DEMO_STOPPED',
} as const;

export type DemoErrorCode = (typeof DemoErrorCode)[keyof typeof DemoErrorCode];

export class DemoError extends VoeError<DemoErrorCode> {}
