import { dirname, resolve } from 'node:path';
import type { Logger } from '../../log/index.js';
import { certificateNotValidWhy } from './certificate-not-valid-why.js';
import { judgeReloadedPair } from './judge-reloaded-pair.js';
import { loadCertificatePair, type CertificatePair } from './load-certificate-pair.js';
import { retryIncompletePair, type IncompletePairRetry } from './retry-incomplete-pair.js';
import { watchCertificateDirectories } from './watch-certificate-directories.js';
import { watchCertificateExpiry } from './watch-certificate-expiry.js';
import { WebhookError } from '../webhook-error.js';

export { certificateNotValidWhy } from './certificate-not-valid-why.js';

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
 * Watches the directories holding the certificate and key (watchCertificateDirectories) and hands
 * every new valid pair to `onReload` (e.g. server.setSecureContext). An invalid or half-written
 * pair is logged and ignored: the server keeps serving the previous certificate. Each read
 * (after a file event, debounced; a poll; or a retry of an incomplete pair) watches anew first,
 * then loads the pair and judges it (readPair); one read at a time.
 */
export function createCertificateReloader(
  options: CertificateReloaderOptions,
): CertificateReloader {
  const certFile = resolve(options.certFile);
  const keyFile = resolve(options.keyFile);
  const log = options.logger;
  let stopped = false;
  const triggers = reloadTriggers(options.debounceMs ?? 100, () => void reload());
  const directories = watchCertificateDirectories(
    [...new Set([dirname(certFile), dirname(keyFile)])],
    () => {
      if (!stopped) triggers.changed();
    },
    log,
  );
  const reading: PairReading = {
    certFile,
    keyFile,
    options,
    served: servedCertificate(certFile, log, () => stopped),
    failures: failureLog(log, options.onResult),
    incomplete: retryIncompletePair(options.settleMs ?? 10_000, () => void reload()),
    stopped: () => stopped,
    watchAnew: (quiet) => (stopped ? directories.close() : directories.rewatch(quiet)),
  };
  const reload = oneAtATime(() => readPair(reading));
  const stopWatching = (): void => {
    triggers.stop();
    reading.served.stopExpiryWatch();
    reading.incomplete.settled();
    directories.close();
  };
  return {
    async start() {
      // Started again (after a failed listen, say): from a clean state, watching anew.
      stopWatching();
      stopped = false;
      const pair = await loadFirstPair(certFile, keyFile);
      reading.served.serve(pair);
      options.onResult?.('success', pair);
      const notValid = certificateNotValidWhy(pair);
      if (notValid !== undefined)
        log.warn(
          { certFile, error: notValid },
          'the serving certificate cannot be served now: the API server will refuse it; /readyz says so until a valid one is in place',
        );
      reading.watchAnew(false);
      const pollIntervalMs = options.pollIntervalMs ?? 60_000;
      if (pollIntervalMs > 0) triggers.poll(pollIntervalMs);
      return pair;
    },
    reload,
    current: () => reading.served.current(),
    stop() {
      stopped = true;
      stopWatching();
    },
  };
}

async function loadFirstPair(certFile: string, keyFile: string): Promise<CertificatePair> {
  try {
    return await loadCertificatePair(certFile, keyFile);
  } catch (error) {
    throw new WebhookError(
      'WEBHOOK_TLS_LOAD_FAILED',
      `Cannot load the serving certificate ${certFile} and key ${keyFile}: ${message(error)}. Check that both files exist, are PEM and belong together.`,
      { cause: error },
    );
  }
}

/** What a read of the files works with. */
interface PairReading {
  certFile: string;
  keyFile: string;
  options: CertificateReloaderOptions;
  served: ServedCertificate;
  failures: FailureLog;
  incomplete: IncompletePairRetry;
  stopped(): boolean;
  /** Watches the directories anew (CertificateDirectoryWatch.rewatch); only closes them once stopped. */
  watchAnew(quiet: boolean): void;
}

/** One read: watch anew, load the pair, then judge it; resolves true when a new pair is served. */
async function readPair(reading: PairReading): Promise<boolean> {
  reading.watchAnew(true);
  let pair: CertificatePair;
  try {
    pair = await loadCertificatePair(reading.certFile, reading.keyFile);
  } catch (error) {
    loadFailed(reading, message(error));
    return false;
  }
  reading.incomplete.settled();
  return applyPair(reading, pair);
}

/** A pair that does not load: read again shortly while it may still be being written, else a failed reload. */
function loadFailed(reading: PairReading, why: string): void {
  const { certFile, keyFile, options } = reading;
  const now = Date.now();
  if (reading.incomplete.settling(now)) {
    // Maybe still being written (the key follows the certificate): not a failure yet.
    options.logger.debug(
      { certFile, keyFile, error: why },
      'serving certificate files do not hold a valid pair yet; reading them again shortly',
    );
    if (!reading.stopped()) reading.incomplete.retrySoon(now);
    return;
  }
  reading.failures.fail(
    why,
    { certFile, keyFile, error: why },
    'serving certificate files changed but are not a valid certificate and key pair; still serving the previous certificate',
  );
}

/** Serves a pair that loaded, as judgeReloadedPair says; true when it is served. */
function applyPair(reading: PairReading, pair: CertificatePair): boolean {
  const { certFile, keyFile, options, served, failures } = reading;
  const judged = judgeReloadedPair(pair, served.current());
  if (judged.kind === 'refuse') {
    failures.fail(
      judged.why,
      {
        certFile,
        keyFile,
        error: judged.why,
        servingUntil: served.current()?.notAfter.toISOString(),
      },
      'serving certificate files changed but the new certificate cannot be served now; still serving the previous certificate',
    );
    return false;
  }
  failures.clear();
  if (judged.kind === 'unchanged') return false;
  if (judged.notValid !== undefined)
    options.logger.warn(
      { certFile, error: judged.notValid },
      'serving certificate reloaded, but it cannot be served now either: the API server will refuse it',
    );
  served.serve(pair);
  options.onReload(pair);
  options.onResult?.('success', pair);
  options.logger.info(
    { certFile, notAfter: pair.notAfter.toISOString(), fingerprint256: pair.fingerprint256 },
    'serving certificate reloaded',
  );
  return true;
}

/** The pair served, and the watch that says when it expires. */
interface ServedCertificate {
  current(): CertificatePair | undefined;
  /** Serves `pair` from now on; says so, once, when it expires (nothing else would until /readyz is asked), unless stopped. */
  serve(pair: CertificatePair): void;
  stopExpiryWatch(): void;
}

function servedCertificate(
  certFile: string,
  log: Logger,
  stopped: () => boolean,
): ServedCertificate {
  let current: CertificatePair | undefined;
  let stopExpiryWatch = (): void => undefined;
  return {
    current: () => current,
    serve(pair) {
      current = pair;
      stopExpiryWatch();
      if (stopped()) return;
      stopExpiryWatch = watchCertificateExpiry(pair, () =>
        log.warn(
          { certFile, notAfter: pair.notAfter.toISOString(), fingerprint256: pair.fingerprint256 },
          'the serving certificate expired: the API server refuses every handshake until a valid one is in place; /readyz says so',
        ),
      );
    },
    stopExpiryWatch: () => stopExpiryWatch(),
  };
}

/** Failed reloads, each logged at warn and counted once for as long as the files fail the same way. */
interface FailureLog {
  fail(why: string, fields: Record<string, unknown>, text: string): void;
  /** The files hold a pair that loads and may be served: the next failure is said again. */
  clear(): void;
}

function failureLog(log: Logger, onResult: CertificateReloaderOptions['onResult']): FailureLog {
  let last = '';
  return {
    fail(why, fields, text) {
      if (why !== last) {
        log.warn(fields, text);
        onResult?.('failure');
      }
      last = why;
    },
    clear() {
      last = '';
    },
  };
}

/**
 * One call of `run` at a time: a call made while one runs waits for it, then runs again (a read
 * requested meanwhile must see what changed since the running one began).
 */
function oneAtATime(run: () => Promise<boolean>): () => Promise<boolean> {
  let running: Promise<boolean> | undefined;
  return () => {
    const next = (running ?? Promise.resolve(false)).then(run, run);
    running = next;
    return next;
  };
}

/** What makes the reloader read the files: a file event (debounced: a Secret update touches several files) and a poll. */
function reloadTriggers(
  debounceMs: number,
  read: () => void,
): { changed: () => void; poll: (intervalMs: number) => void; stop: () => void } {
  let debounce: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  return {
    changed() {
      if (debounce) clearTimeout(debounce);
      debounce = setTimeout(() => {
        debounce = undefined;
        read();
      }, debounceMs);
      debounce.unref();
    },
    poll(intervalMs) {
      poll = setInterval(read, intervalMs);
      poll.unref();
    },
    stop() {
      if (debounce) clearTimeout(debounce);
      if (poll) clearInterval(poll);
    },
  };
}
