import { closeSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';

/**
 * The room staged for a rewrite of the lock file: more than its longest content (pid, token, PID
 * namespace, start time and a helper's pid and start time come to under 160 bytes).
 */
const SPARE_BYTES = 256;

/** The file, staged next to a held lock, that its next rewrite fills and renames into place. */
export interface SpareFile {
  /**
   * Stages it, unless it already is: created anew ('wx': a file or symbolic link planted at that
   * name is never written through) and filled with `content` (the lock's content now) padded to
   * SPARE_BYTES, so that the rewrite only overwrites what is already allocated. Its content names
   * the holder: left behind by a SIGKILL, it is swept away like a waiter's files. Throws when it
   * cannot (nothing is left staged then).
   */
  reserve(content: string): void;
  /** Closes and removes it, if it is staged. */
  drop(): void;
  /**
   * Fills it with `next` (staging it first from `content` if needed) and renames it over `target`.
   * Throws when it cannot, leaving nothing staged.
   */
  replace(target: string, next: string, content: string): void;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* never created, renamed, or gone */
  }
}

/** The spare file at `path`, not staged yet. */
export function createSpareFile(path: string): SpareFile {
  /** Its open descriptor; null until reserved, and again once renamed or dropped. */
  let spare: number | null = null;
  const drop = (): void => {
    if (spare === null) return;
    try {
      closeSync(spare);
    } catch {
      /* closed */
    }
    unlinkQuietly(path);
    spare = null;
  };
  const reserve = (content: string): void => {
    if (spare !== null) return;
    const descriptor = openSync(path, 'wx', 0o600);
    try {
      const placeholder = Buffer.from(`${content.trimEnd().padEnd(SPARE_BYTES - 1)}\n`);
      if (writeSync(descriptor, placeholder, 0, placeholder.length, 0) !== placeholder.length) {
        throw Object.assign(new Error(`short write to ${path}`), { code: 'ENOSPC' });
      }
    } catch (error) {
      closeSync(descriptor);
      unlinkQuietly(path);
      throw error;
    }
    spare = descriptor;
  };
  const replace = (target: string, next: string, content: string): void => {
    let filled = false;
    try {
      reserve(content);
      const bytes = Buffer.from(next);
      const descriptor = spare as number;
      if (
        bytes.length > SPARE_BYTES ||
        writeSync(descriptor, bytes, 0, bytes.length, 0) !== bytes.length
      )
        throw new Error('not staged');
      ftruncateSync(descriptor, bytes.length);
      closeSync(descriptor);
      spare = null;
      filled = true;
      renameSync(path, target);
    } catch (error) {
      drop();
      if (filled) unlinkQuietly(path);
      throw error;
    }
  };
  return { reserve, drop, replace };
}
