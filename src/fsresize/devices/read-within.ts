import { open } from 'node:fs/promises';
import { beforeDeadline, LATE } from './before-deadline.js';

/**
 * Up to `length` bytes of `path` at `offset`, or null when it cannot be opened or read, or does not
 * answer before `deadline` (Date.now() ms): a loop device over a file on a hung NFS or FUSE mount
 * never answers, and the read voe stops waiting for is abandoned (see beforeDeadline).
 */
export async function readWithin(
  path: string,
  offset: number,
  length: number,
  deadline: number,
): Promise<Uint8Array | null> {
  const call = (async (): Promise<Uint8Array> => {
    const handle = await open(path, 'r');
    try {
      const buffer = new Uint8Array(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  })();
  const outcome = await beforeDeadline(
    call.catch(() => null),
    deadline,
  );
  return outcome === LATE ? null : outcome;
}
