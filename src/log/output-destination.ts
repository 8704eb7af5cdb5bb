import { pino, type DestinationStream } from 'pino';

const ignore = (): void => undefined;

/**
 * Where voe's log lines go: file descriptor `fd` (1 = standard output, 2 = standard error),
 * written synchronously, so nothing is held back to flush at exit. A write that fails for good
 * (EPIPE: the reader went away; EIO: the terminal was closed; ENOSPC, EBADF...) ends the log
 * output, never voe: the stream stops writing, as pino does for EPIPE alone. (pino's default
 * asynchronous destination rethrows any other error as an uncaught exception, and its exit hook
 * then retries the unwritten line forever: `voe serve` in a closed terminal never exited.)
 */
export function outputDestination(fd: number): DestinationStream {
  const stream = pino.destination({ dest: fd, sync: true });
  stream.on('error', () => {
    stream.write = () => true;
    stream.flushSync = ignore;
    stream.end = ignore;
  });
  return stream;
}
