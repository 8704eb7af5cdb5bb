import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../log/index.js';
import { removeDirAtExit } from '../../exit/index.js';
import { continueUnlessAborted } from '../continue-unless-aborted.js';
import { lockCertDir } from './lock-cert-dir.js';
import type { StartUpCleanups } from '../start-up-cleanups.js';
import { CERT_DIR_LOCK, DEV_CERT_DIR_PREFIX, sweepDevCertDirs } from './sweep-dev-cert-dirs.js';
import { WebhookError } from '../webhook-error.js';

/**
 * The directory voe serve --dev writes its certificate into, locked for this instance: the given
 * --cert-dir, or a new temporary directory (removed by the cleanups, and at exit).
 */
export async function devCertDir(
  certDir: string | undefined,
  cleanups: StartUpCleanups,
  log: Logger,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (certDir !== undefined) await lockGivenCertDir(certDir, cleanups);
  else certDir = await createTemporaryCertDir(cleanups, log);
  continueUnlessAborted(signal);
  return certDir;
}

async function lockGivenCertDir(certDir: string, cleanups: StartUpCleanups): Promise<void> {
  // One instance per --cert-dir: a second one (the same command run again) would overwrite
  // the certificate the first one serves and registered, and the API server would then
  // refuse every covered write (certificate signed by unknown authority).
  const releaseDir = await lockCertDir(certDir);
  cleanups.add({
    run: releaseDir,
    left: (why) =>
      `Could not release ${join(certDir, CERT_DIR_LOCK)}: ${why}. Remove it by hand if no voe serve --dev uses ${certDir}.`,
  });
}

async function createTemporaryCertDir(cleanups: StartUpCleanups, log: Logger): Promise<string> {
  const temp = await mkdtemp(join(tmpdir(), DEV_CERT_DIR_PREFIX)).catch((error: unknown) => {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      `The temporary directory for the dev certificate cannot be created in ${tmpdir()} ` +
        `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set TMPDIR to a writable directory, or pass --cert-dir.`,
      { cause: error },
    );
  });
  // Also removed if the process ends without this clean-up (e.g. `voe demo` interrupted): it holds the dev key.
  const forgetAtExit = removeDirAtExit(temp);
  cleanups.add({
    run: async () => {
      await rm(temp, { recursive: true, force: true });
      forgetAtExit();
    },
    left: (why) =>
      `Could not remove the temporary certificate dir ${temp} (it holds the dev serving key): ${why}. Remove it by hand: rm -r ${temp}`,
  });
  // Locked like a --cert-dir, so a later instance can tell it from one left by a killed instance (SIGKILL runs no clean-up).
  await lockCertDir(temp);
  for (const left of await sweepDevCertDirs(tmpdir(), temp)) {
    log.info(
      { certDir: left },
      'removed the temporary certificate dir of a voe serve --dev that was killed (it held its dev serving key)',
    );
  }
  return temp;
}
