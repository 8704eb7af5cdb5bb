import { watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../log/index.js';
import { loadCertificatePair, type CertificatePair } from './load-certificate-pair.js';
import { WebhookError } from './webhook-error.js';

/** Why `pair` cannot be served at `now` (expired, or not valid yet), or undefined when it can. */
export function certificateNotValidWhy(
  pair: Pick<CertificatePair, 'notBefore' | 'notAfter'>,
  now = new Date(),
): string | undefined {
  if (now > pair.notAfter) return `the certificate expired at ${pair.notAfter.toISOString()}`;
  if (now < pair.notBefore)
    return `the certificate is not valid before ${pair.notBefore.toISOString()}`;
  return undefined;
}

export interface CertificateReloaderOptions {
  certFile: string;
  keyFile: string;
  logger: Logger;
  /** Called with every new valid pair (not for the first one, which start() returns). */
  onReload: (pair: CertificatePair) => void;
  onResult?: (result: 'success' | 'failure', pair?: CertificatePair) => void;
  /** Changes are read this long after the last file event (a Secret update touches several files). Default 100 ms. */
  debounceMs?: number;
  /** Files are also re-read this often, in case a file event was missed. Default 60 s; 0 disables. */
  pollIntervalMs?: number;
  /**
   * A pair that cannot be loaded (a file missing, empty, unreadable, or a key that does not belong
   * to the certificate) is read again for this long before it counts as a failed reload: a writer
   * that puts the certificate and the key in place one after the other, or removes and writes them
   * again, leaves an incomplete pair for a moment. Default 10 s.
   */
  settleMs?: number;
}

export interface CertificateReloader {
  /** Loads the first pair (throws WebhookError WEBHOOK_TLS_LOAD_FAILED if invalid) and starts watching. */
  start(): Promise<CertificatePair>;
  /** Re-reads the files now; resolves true if a new valid pair was applied. */
  reload(): Promise<boolean>;
  current(): CertificatePair | undefined;
  stop(): void;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Watches the directories holding the certificate and key (not the files: a mounted Kubernetes
 * Secret replaces them by swapping the `..data` symlink, which only the directory sees) and hands
 * every new valid pair to `onReload` (e.g. server.setSecureContext). An invalid or half-written
 * pair is logged and ignored: the server keeps serving the previous certificate.
 */
export function createCertificateReloader(
  options: CertificateReloaderOptions,
): CertificateReloader {
  const certFile = resolve(options.certFile);
  const keyFile = resolve(options.keyFile);
  const log = options.logger;
  const debounceMs = options.debounceMs ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 60_000;
  const settleMs = options.settleMs ?? 10_000;
  let current: CertificatePair | undefined;
  let watchers: FSWatcher[] = [];
  const directories = [...new Set([dirname(certFile), dirname(keyFile)])];
  let debounce: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  let stopped = false;
  let lastFailure = '';
  let running: Promise<boolean> | undefined;
  /** Since when (ms) the files have not held a pair that loads; undefined while they do. */
  let incompleteSince: number | undefined;
  let settleRetry: NodeJS.Timeout | undefined;
  let settleDelayMs = 0;

  /** Reads an incomplete pair again soon (250 ms, doubling up to 2 s), the last time when the settle time is over. */
  function retryIncomplete(now: number): void {
    if (stopped || settleRetry || incompleteSince === undefined) return;
    settleDelayMs = Math.min(Math.max(settleDelayMs * 2, 250), 2_000);
    const delay = Math.max(0, Math.min(settleDelayMs, incompleteSince + settleMs - now));
    settleRetry = setTimeout(() => {
      settleRetry = undefined;
      void reload();
    }, delay);
    settleRetry.unref();
  }

  let expiry: NodeJS.Timeout | undefined;
  /** Says so, once, when the served certificate expires (nothing else would until /readyz is asked). */
  function watchExpiry(): void {
    if (expiry) clearTimeout(expiry);
    expiry = undefined;
    const served = current;
    if (stopped || !served) return;
    const left = served.notAfter.getTime() - Date.now();
    if (left < 0) return; // already said at start or reload
    // setTimeout holds at most 2^31-1 ms (~24.8 days): a longer wait is taken in steps.
    expiry = setTimeout(
      () => {
        if (Date.now() <= served.notAfter.getTime()) {
          watchExpiry();
          return;
        }
        log.warn(
          {
            certFile,
            notAfter: served.notAfter.toISOString(),
            fingerprint256: served.fingerprint256,
          },
          'the serving certificate expired: the API server refuses every handshake until a valid one is in place; /readyz says so',
        );
      },
      Math.min(left + 1_000, 2 ** 31 - 1),
    );
    expiry.unref();
  }

  function settled(): void {
    incompleteSince = undefined;
    settleDelayMs = 0;
    if (settleRetry) clearTimeout(settleRetry);
    settleRetry = undefined;
  }

  async function reloadOnce(): Promise<boolean> {
    watchDirectories(true);
    let pair: CertificatePair;
    try {
      pair = await loadCertificatePair(certFile, keyFile);
    } catch (error) {
      const why = message(error);
      const now = Date.now();
      incompleteSince ??= now;
      if (now - incompleteSince < settleMs) {
        // Maybe still being written (the key follows the certificate): not a failure yet.
        log.debug(
          { certFile, keyFile, error: why },
          'serving certificate files do not hold a valid pair yet; reading them again shortly',
        );
        retryIncomplete(now);
        return false;
      }
      if (why !== lastFailure) {
        log.warn(
          { certFile, keyFile, error: why },
          'serving certificate files changed but are not a valid certificate and key pair; still serving the previous certificate',
        );
        options.onResult?.('failure');
      }
      lastFailure = why;
      return false;
    }
    settled();
    if (current && pair.cert === current.cert && pair.key === current.key) {
      lastFailure = '';
      return false;
    }
    // A pair the API server would refuse (expired, not valid yet) never replaces one it accepts.
    const notValid = certificateNotValidWhy(pair);
    if (
      notValid !== undefined &&
      current !== undefined &&
      certificateNotValidWhy(current) === undefined
    ) {
      if (notValid !== lastFailure) {
        log.warn(
          { certFile, keyFile, error: notValid, servingUntil: current.notAfter.toISOString() },
          'serving certificate files changed but the new certificate cannot be served now; still serving the previous certificate',
        );
        options.onResult?.('failure');
      }
      lastFailure = notValid;
      return false;
    }
    lastFailure = '';
    if (notValid !== undefined)
      log.warn(
        { certFile, error: notValid },
        'serving certificate reloaded, but it cannot be served now either: the API server will refuse it',
      );
    current = pair;
    watchExpiry();
    options.onReload(pair);
    options.onResult?.('success', pair);
    log.info(
      { certFile, notAfter: pair.notAfter.toISOString(), fingerprint256: pair.fingerprint256 },
      'serving certificate reloaded',
    );
    return true;
  }

  function reload(): Promise<boolean> {
    // One read at a time; a reload requested meanwhile waits for it and reads again.
    const next = (running ?? Promise.resolve(false)).then(reloadOnce, reloadOnce);
    running = next;
    return next;
  }

  function schedule(): void {
    if (stopped) return;
    if (debounce) clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      void reload();
    }, debounceMs);
    debounce.unref();
  }

  function watchDirectory(dir: string, quiet: boolean): void {
    try {
      const watcher = watch(dir, { persistent: false }, schedule);
      watcher.on('error', (error) =>
        log.warn(
          { dir, error: message(error) },
          'stopped watching the certificate directory; changes are still picked up by polling',
        ),
      );
      watchers.push(watcher);
    } catch (error) {
      // Missing for a moment (removed and being made again): the next read watches it again.
      if (quiet)
        log.debug(
          { dir, error: message(error) },
          'cannot watch the certificate directory now; trying again at the next read',
        );
      else
        log.warn(
          { dir, error: message(error) },
          'cannot watch the certificate directory; changes are picked up by polling only',
        );
    }
  }

  /**
   * Watches the directories at their paths now. A watch follows the directory it was set on: one
   * removed and made again, or renamed over (a deploy's `rm -r certs && cp -r new certs`), would
   * tell nothing more. So each read (after a file event, a poll or a retry) watches anew first;
   * whatever changes after that is seen, whatever changed before is read.
   */
  function watchDirectories(quiet: boolean): void {
    for (const w of watchers) w.close();
    watchers = [];
    if (stopped) return;
    for (const dir of directories) watchDirectory(dir, quiet);
  }

  function stopWatching(): void {
    if (debounce) clearTimeout(debounce);
    if (expiry) clearTimeout(expiry);
    expiry = undefined;
    settled();
    if (poll) clearInterval(poll);
    for (const w of watchers) w.close();
    watchers = [];
  }

  return {
    async start() {
      // Started again (after a failed listen, say): from a clean state, watching anew.
      stopWatching();
      stopped = false;
      try {
        current = await loadCertificatePair(certFile, keyFile);
      } catch (error) {
        throw new WebhookError(
          'WEBHOOK_TLS_LOAD_FAILED',
          `Cannot load the serving certificate ${certFile} and key ${keyFile}: ${message(error)}. Check that both files exist, are PEM and belong together.`,
          { cause: error },
        );
      }
      options.onResult?.('success', current);
      watchExpiry();
      const notValid = certificateNotValidWhy(current);
      if (notValid !== undefined)
        log.warn(
          { certFile, error: notValid },
          'the serving certificate cannot be served now: the API server will refuse it; /readyz says so until a valid one is in place',
        );
      watchDirectories(false);
      if (pollIntervalMs > 0) {
        poll = setInterval(() => {
          void reload();
        }, pollIntervalMs);
        poll.unref();
      }
      return current;
    },
    reload,
    current: () => current,
    stop() {
      stopped = true;
      stopWatching();
    },
  };
}
