import type { Logger } from '../log/index.js';
import { isVoeError } from '../errors/index.js';
import { WebhookError } from './webhook-error.js';

/** Undoes one step of the webhook's start-up; `left` says what stays behind if it fails, and how to remove it by hand. */
export interface Cleanup {
  run: () => Promise<void>;
  left: (why: string) => string;
}

export interface StartUpCleanups {
  /** Registers the undoing of a step just done. */
  add(cleanup: Cleanup): void;
  /**
   * Runs every cleanup, the last added first; each is tried. If any failed, rejects with
   * WEBHOOK_CLEANUP_FAILED joining what each left behind. Safe to call twice (one run).
   */
  stop(): Promise<void>;
}

/** The cleanups of serveWebhook's steps, undone in reverse by stop(). */
export function createStartUpCleanups(log: Logger): StartUpCleanups {
  const cleanups: Cleanup[] = [];
  let stopped: Promise<void> | undefined;
  const runAll = async (): Promise<void> => {
    const failures: string[] = [];
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        log.error({ error: why }, 'cleanup failed while stopping the webhook');
        failures.push(cleanup.left(why));
      }
    }
    if (failures.length > 0) throw new WebhookError('WEBHOOK_CLEANUP_FAILED', failures.join(' '));
  };
  return {
    add: (cleanup) => {
      cleanups.push(cleanup);
    },
    stop: () => (stopped ??= runAll()),
  };
}

/**
 * After a failed start-up: undoes what was done and rethrows `error`; if the undoing fails too,
 * throws WEBHOOK_CLEANUP_FAILED saying what is left, and why start-up failed.
 */
export async function undoFailedStart(error: unknown, cleanups: StartUpCleanups): Promise<never> {
  try {
    await cleanups.stop();
  } catch (cleanupError) {
    // What is left behind matters more than why start-up failed; both are said.
    const start =
      isVoeError(error) && error.code !== 'WEBHOOK_START_ABORTED'
        ? ` (cleaning up after ${error.code}: ${error.message})`
        : '';
    throw new WebhookError('WEBHOOK_CLEANUP_FAILED', `${(cleanupError as Error).message}${start}`, {
      cause: error,
    });
  }
  throw error;
}
