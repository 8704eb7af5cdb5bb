import { constants as osConstants } from 'node:os';

/** The exit code after the reader of voe's output went away: 128 + SIGPIPE, as a shell tool killed by it. */
export const OUTPUT_CLOSED_EXIT_CODE = 128 + osConstants.signals.SIGPIPE;

const listeners = new Set<() => void>();

/**
 * Calls `listener` when whoever reads voe's standard output stops reading (`voe demo | head`):
 * a long command stops as it would on a signal, cleaning up what it started. Returns the
 * unregistration. Without a listener, voe exits at once with OUTPUT_CLOSED_EXIT_CODE.
 */
export function onOutputClosed(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * Installed once by the CLI's entry point: a write to a closed pipe (EPIPE) on `stream` is no
 * crash and no stack trace, but the end of the output, said once to onOutputClosed's listeners
 * (Node ignores SIGPIPE, so without this the error event would end voe with exit code 2 or a
 * stack, and leave what a long command started). Any other error of the stream stays uncaught.
 */
export function watchOutput(
  stream: NodeJS.WritableStream = process.stdout,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (closed) return; // the writes still queued after the first EPIPE fail too
    if (error.code !== 'EPIPE') throw error;
    closed = true;
    if (listeners.size === 0) {
      exit(OUTPUT_CLOSED_EXIT_CODE);
      return;
    }
    for (const listener of [...listeners]) listener();
  });
}

/**
 * Installed once by the CLI's entry point: a write to a closed pipe (EPIPE) on `stream` (standard
 * error) is no crash. What voe says there (a notice that it waits for a device lock, that a stop
 * signal arrived) only informs: a reader that went away (`voe fsresize grow 2>&1 | head -1`, a log
 * collector that stopped) must not end voe in the middle of its work, with no answer and a grow
 * tool left to finish alone. The rest of what would go there is dropped. Any other error of the
 * stream stays uncaught.
 */
export function watchDiagnostics(stream: NodeJS.WritableStream = process.stderr): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
