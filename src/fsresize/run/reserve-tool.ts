import type { ReleaseLock } from './device-lock.js';
import { fsckExitText } from '../model/fsck-exit-meaning.js';
import { FsResizeError, isFsResizeError } from '../model/fsresize-error.js';
import type { PrecheckRan } from '../model/inspection.js';

/**
 * Just before the tool `next` starts: the device lock must be able to name it
 * (ReleaseLock.reserveTool), or a voe killed while it runs would leave the device unlocked with
 * the tool still at work. The error says what ran before (`precheck`), if anything.
 */
export function reserveTool(held: ReleaseLock, next: string, precheck: PrecheckRan | null): void {
  try {
    held.reserveTool();
  } catch (error) {
    if (!isFsResizeError(error)) throw error;
    const outcome = precheck
      ? `${precheck.command.join(' ')} ran first (${fsckExitText(precheck.exitCode)}); the filesystem was not grown`
      : 'nothing was changed';
    throw new FsResizeError(
      error.code,
      `${next} was not started, as the device lock could not be made to name it while it runs: ${error.message}; ${outcome}`,
      { cause: error, ...(precheck ? { details: { precheck } } : {}) },
    );
  }
}
