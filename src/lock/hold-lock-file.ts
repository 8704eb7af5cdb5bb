import { readFileSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import type { AcquireLockFileOptions, ReleaseLockFile } from './lock-file-types.js';
import { alive } from './holder-dead.js';
import { formatLockContent, type LockContent, type LockProcess } from './lock-content.js';
import { processStartTime } from './process-start-time.js';
import { createSpareFile } from './spare-file.js';

/**
 * The lock file at `lockPath`, just created with the content `mine`: its release, and the record
 * of a helper started under it (see ReleaseLockFile). Every rewrite replaces the file atomically
 * (a waiter reads the old content or the new, never a part) through a spare file staged beside it
 * (`<lock>.<token>.helper`), and only while the file is still this holder's.
 */
export function holdLockFile(
  lockPath: string,
  mine: LockContent,
  cannotCreate: AcquireLockFileOptions['cannotCreate'],
): ReleaseLockFile {
  const { token, namespace } = mine;
  /** What the lock file says now, as this holder last wrote it. */
  let content = formatLockContent(mine);
  /** The helper recorded in it, once one is. */
  let helper: LockProcess | undefined;
  const spare = createSpareFile(`${lockPath}.${token}.helper`);
  /** Replaces the lock file's content; false if it is not ours or cannot be written. */
  const rewrite = (next: string): boolean => {
    try {
      if (readFileSync(lockPath, 'utf8') !== content) return false;
      spare.replace(lockPath, next, content);
    } catch {
      spare.drop();
      return false;
    }
    content = next;
    return true;
  };
  const release = async (): Promise<void> => {
    try {
      const current = await readFile(lockPath, 'utf8').catch(() => '');
      if (current !== content) return;
      // A tool still running (voe stopped waiting for it at its timeout) keeps the lock: it is
      // handed to the tool, which holds it until it ends (then a waiter finds it stale). When
      // the lock cannot be rewritten, it stays as it is, naming this process and the tool:
      // never removed while the tool runs.
      if (helper !== undefined && alive(helper)) {
        rewrite(formatLockContent({ holder: helper, token, ...(namespace ? { namespace } : {}) }));
        return;
      }
      await unlink(lockPath).catch(() => undefined);
    } finally {
      spare.drop();
    }
  };
  const prepareHelper = (): void => {
    try {
      spare.reserve(content);
    } catch (error) {
      throw cannotCreate((error as NodeJS.ErrnoException).code ?? 'error', error);
    }
  };
  const recordHelper = (pid: number): void => {
    const helperStart = processStartTime(pid);
    const recorded = { pid, ...(helperStart === null ? {} : { start: helperStart }) };
    // If it cannot be written, the lock stays held by this process; only the helper's survival is not recorded.
    if (rewrite(formatLockContent({ ...mine, helper: recorded }))) {
      helper = recorded;
      // Room for handing the lock to the helper at release (see release), if it is still running then.
      try {
        spare.reserve(content);
      } catch {
        /* release then leaves the lock naming this process and the helper */
      }
    }
  };
  return Object.assign(release, { prepareHelper, recordHelper });
}
