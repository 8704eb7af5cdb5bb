import { access, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLockFile } from '../lock/index.js';

/** The lock a voe serve --dev instance holds on its certificate dir (--cert-dir or temporary) while it runs. */
export const CERT_DIR_LOCK = 'voe-serve.lock';

/** The prefix of voe serve --dev's temporary certificate dirs (mkdtemp adds six characters). */
export const DEV_CERT_DIR_PREFIX = 'voe-webhook-';

const TEMPORARY_DIR = new RegExp(`^${DEV_CERT_DIR_PREFIX}[A-Za-z0-9]{6}$`);

/**
 * Removes the temporary certificate dirs under `parent` that a voe serve --dev killed with SIGKILL
 * (or by the OOM killer) left behind, each holding its dev serving key: those whose CERT_DIR_LOCK
 * names a process that is gone. The stale lock is taken over first (acquireLockFile), so of two
 * instances sweeping at once only one removes a dir, and never one whose holder still runs. A dir
 * without a lock (being made right now, or left by an older voe), of another name, or `except`
 * (ours) is left alone. Resolves with the dirs removed; never throws.
 */
export async function sweepDevCertDirs(parent: string, except: string): Promise<string[]> {
  let names: string[];
  try { names = await readdir(parent); } catch { return []; }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(parent, name);
    if (!TEMPORARY_DIR.test(name) || dir === except) continue;
    const lock = join(dir, CERT_DIR_LOCK);
    if (!(await access(lock).then(() => true, () => false))) continue;
    try {
      await acquireLockFile(lock, { deadline: Date.now(), busy: () => new Error('held'), cannotCreate: (code) => new Error(code) });
    } catch {
      continue; // its instance still runs, or the dir is not ours to touch (another user's)
    }
    await rm(dir, { recursive: true, force: true }).then(() => removed.push(dir), () => undefined);
  }
  return removed;
}
