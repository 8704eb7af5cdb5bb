import { realClock, sleep } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import type { ServingWebhook } from '../../webhook/index.js';
import type { StopReason } from '../stop-requests.js';
import { describeStop } from './describe-stop.js';
import { exitSoon } from './exit-soon.js';

/**
 * voe serve's end, once asked to stop (`reason`): says an uncaught error, drains, waits
 * --shutdown-delay after a signal (unless hurried), stops the webhook and lets the process end
 * (exit code 2 unless a signal stopped it).
 */
export async function stopServing(
  serving: ServingWebhook | undefined,
  reason: StopReason,
  options: { logger: Logger; shutdownDelay: number; hurry: AbortSignal },
): Promise<void> {
  const { logger, shutdownDelay, hurry } = options;
  if (reason.kind === 'error') {
    // Said first: the cleanup below may fail too, and that is what the exit reports then.
    const error = reason.error;
    logger.error(describeStop(reason), 'stopping after an uncaught error');
    process.stderr.write(
      `voe: ${reason.origin}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  // From here on every answer closes its connection.
  serving?.drain();
  if (serving && reason.kind === 'signal' && shutdownDelay > 0 && !hurry.aborted) {
    // In cluster the pod leaves the Service's endpoints only after the signal: keep answering meanwhile,
    // each answer closing its connection, so the clients' next requests open new ones (to other pods)
    // rather than reuse one that the close would cut.
    logger.info(
      { ...describeStop(reason), seconds: shutdownDelay },
      'stopping after --shutdown-delay; still answering meanwhile, each answer closing its connection (a second signal stops at once)',
    );
    await sleep(realClock, shutdownDelay * 1000, hurry); // resolves early when hurried
  }
  try {
    if (serving) {
      logger.info(describeStop(reason), 'stopping');
      // Rejects with WEBHOOK_CLEANUP_FAILED (what is left, how to remove it): runCli prints it and exits 2.
      await serving.stop();
    } else {
      logger.info(describeStop(reason), 'stopped during start-up; what it had changed was undone');
    }
  } finally {
    exitSoon();
  }
  if (reason.kind !== 'signal') process.exitCode = 2;
}
