import { sweepAbandonedDirs } from '../../lock/index.js';

/** The lock a voe serve --dev instance holds on its certificate dir (--cert-dir or temporary) while it runs. */
export const CERT_DIR_LOCK = 'voe-serve.lock';

/** The prefix of voe serve --dev's temporary certificate dirs (mkdtemp adds six characters). */
export const DEV_CERT_DIR_PREFIX = 'voe-webhook-';

/**
 * Removes the temporary certificate dirs under `parent` that a voe serve --dev killed with SIGKILL
 * (or by the OOM killer) left behind, each holding its dev serving key: those whose CERT_DIR_LOCK
 * names a process that is gone (sweepAbandonedDirs). A dir without a lock (being made right now, or
 * left by an older voe), of another name, or `except` (ours) is left alone. Resolves with the dirs
 * removed; never throws.
 */
export function sweepDevCertDirs(parent: string, except: string): Promise<string[]> {
  return sweepAbandonedDirs(parent, {
    prefix: DEV_CERT_DIR_PREFIX,
    lockName: CERT_DIR_LOCK,
    except,
  });
}
