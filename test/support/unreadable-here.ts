/**
 * Processes on this machine whose open files the tests (root) may not read, found by the look
 * voe runs before an offline grow: e.g. a sandbox's init holding a capability root lacks here.
 * voe refuses an offline ext grow while there are any (FSRESIZE_PERMISSION_DENIED); the tests that
 * are about something else tell it to ignore them, and only on a machine that has them, so
 * elsewhere they run with the default.
 */
import type { UnreadableProcess } from '../../src/fsresize/model/block-devices.js';
import { findDeviceOpeners } from '../../src/fsresize/devices/find-device-openers.js';
import { IGNORE_UNREADABLE_PROCESSES_ENV } from '../../src/cli/ignore-unreadable-processes.js';

export const UNREADABLE_HERE: UnreadableProcess[] = (await findDeviceOpeners(['0:0'])).unreadable;

/** FsResizerOptions.unreadableProcesses for a test that is not about them. */
export const unreadablePolicyHere: 'refuse' | 'ignore' =
  UNREADABLE_HERE.length > 0 ? 'ignore' : 'refuse';

/** `env` plus what makes a voe command ignore them on this machine (nothing elsewhere). */
export function envIgnoringUnreadableHere(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return UNREADABLE_HERE.length > 0 ? { ...env, [IGNORE_UNREADABLE_PROCESSES_ENV]: '1' } : env;
}
