import { readlinkSync } from 'node:fs';
import { processStartTime } from './process-start-time.js';

/** This process's PID namespace ("pid:[4026531836]"), or "" where /proc does not say. */
function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

let own:
  | { namespace: ReturnType<typeof pidNamespace>; start: ReturnType<typeof processStartTime> }
  | undefined;

/** This process's PID namespace and start time: read from /proc once, they never change. */
export function ownIdentity(): NonNullable<typeof own> {
  own ??= { namespace: pidNamespace(), start: processStartTime(process.pid) };
  return own;
}
