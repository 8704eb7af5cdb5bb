import { makeDirectories } from '../files/index.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIPv6, type AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { apiErrorOf, isKubeError } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { createCertificateAuthority, type CertificateAuthority } from '../tls/index.js';
import { EXPAND_VALIDATION_SETTING_NAME } from '../settings/index.js';
import { buildValidatingWebhookConfiguration } from './build-validating-webhook-configuration.js';
import { confirmApiServerCalls } from './confirm-api-server-calls.js';
import { createWebhookServer } from './create-webhook-server.js';
import type { Validator } from './validator.js';
import { isVoeError } from '../errors/index.js';
import { acquireLockFile } from '../lock/index.js';
import { removeDirAtExit } from '../exit/index.js';
import { waitFor } from './wait-for.js';
import { WebhookError } from './webhook-error.js';
import { devOwnerAnnotations, type DevOwner } from './dev-registration-owner.js';
import {
  deleteValidatingWebhookConfiguration,
  registerDevConfiguration,
} from './webhook-registration.js';
import { watchDevRegistration } from './watch-dev-registration.js';
import { CERT_DIR_LOCK, DEV_CERT_DIR_PREFIX, sweepDevCertDirs } from './sweep-dev-cert-dirs.js';
import {
  DEV_CA_VALIDITY_DAYS,
  startDevCertificateRenewal,
  writeDevServingCertificate,
} from './renew-dev-certificate.js';

/** What serve needs from the informer layer (src/kube): caches for the validators and their sync state. */
export interface StartedCaches<C> {
  caches: C;
  ready(): boolean;
  /** Resources not synced yet (named by /readyz and the sync timeout). */
  unsynced(): string[];
  /** Resources the cluster does not serve, cached as empty (named by /readyz). */
  notServed(): string[];
  /**
   * Resources the cluster serves and voe watches but the decisions do not read yet, without making
   * voe unready (named by /readyz, counted by voe_webhook_caches_not_read): Longhorn's caches under
   * --longhorn auto that have not all listed (found after start, or cannot list: no Longhorn Role).
   */
  notRead?(): string[];
  stop(): Promise<void>;
}

export interface ServeWebhookOptions<C> {
  kubeConfig: KubeConfig;
  logger: Logger;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** dev: generate a CA and serving certificate and register a url-based configuration; else serve tlsCertFile/tlsKeyFile. */
  dev: boolean;
  /** dev only: where ca.crt, tls.crt and tls.key are written; default a temporary directory removed on stop. */
  certDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** dev only: metadata.name of the registered ValidatingWebhookConfiguration. */
  configurationName?: string;
  /** dev only: the Setting whose updates the registered setting webhook receives (the validators' settingName). */
  settingName?: string;
  /** dev only: how long to wait, after registering, for the API server's first call (default 30 s). */
  registrationTimeoutMs?: number;
  /** dev only: how long to wait for the caches before registering (default 120 s). */
  cacheSyncTimeoutMs?: number;
  /** dev only: how often the serving certificate is renewed (default DEV_RENEW_EVERY_MS, 20 days; tests: shorter). */
  devCertificateRenewMs?: number;
  /** Metrics registry of the server; default a private one. */
  registry?: Registry;
  /**
   * Aborting it stops the start-up at its next step or wait (also the cache-sync and the
   * registration waits): what was done is undone as by stop(), and serveWebhook rejects with
   * WEBHOOK_START_ABORTED. After start-up it does nothing: call stop().
   */
  signal?: AbortSignal;
  startCaches: (kubeConfig: KubeConfig, logger: Logger) => Promise<StartedCaches<C>>;
  createValidators: (caches: C, options: { logger: Logger }) => Validator[];
}

export interface ServingWebhook {
  address: AddressInfo;
  /** https://host:port the webhook answers on. */
  url: string;
  /** dev: directory holding ca.crt, tls.crt, tls.key. */
  certDir?: string;
  /** dev: the registered configuration's name. */
  configurationName?: string;
  /**
   * The shutdown started (voe serve's --shutdown-delay): from now on every answer carries
   * `Connection: close`, so clients stop reusing connections that stop() would cut
   * (WebhookServer.drain). Safe to call twice.
   */
  drain(): void;
  /**
   * Removes the registration (dev), closes the server, stops the caches, deletes a temporary cert
   * dir. Tries each; if any failed, rejects with WEBHOOK_CLEANUP_FAILED saying what is left and how
   * to remove it by hand. Safe to call twice.
   */
  stop(): Promise<void>;
}

export const DEV_CONFIGURATION_NAME = 'voe-dev';

function urlHost(address: string): string {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
  return isIPv6(host) ? `[${host}]` : host;
}

/** WEBHOOK_INVALID_OPTIONS for a --cert-dir (or temporary directory) the dev certificate cannot be written to; `why` is the errno or message. */
function certDirUnwritable(dir: string, why: string, cause: unknown): WebhookError {
  return new WebhookError(
    'WEBHOOK_INVALID_OPTIONS',
    `The dev certificate cannot be written to ${dir} (${why}); pass a --cert-dir voe may create and write.`,
    { cause },
  );
}

/** Takes DIR/voe-serve.lock at once, or fails with WEBHOOK_CERT_DIR_IN_USE naming the instance that holds it. */
function lockCertDir(dir: string): Promise<() => Promise<void>> {
  return acquireLockFile(join(dir, CERT_DIR_LOCK), {
    deadline: Date.now(),
    busy: (holder) =>
      new WebhookError(
        'WEBHOOK_CERT_DIR_IN_USE',
        `--cert-dir ${dir} is used by another voe serve --dev (pid ${holder}), ` +
          'whose registered webhook trusts the certificate there; nothing was changed. Give this one another --cert-dir, or stop that one first.',
      ),
    cannotCreate: (code, cause) => certDirUnwritable(dir, code, cause),
  });
}

/** Writes a dev CA and a serving certificate for 127.0.0.1/localhost (and the bind host) into dir. */
async function writeDevCertificates(
  dir: string,
  host: string,
): Promise<{
  ca: CertificateAuthority;
  hosts: string[];
  caPem: string;
  certFile: string;
  keyFile: string;
}> {
  const ca = await createCertificateAuthority('voe-dev-webhook-ca', {
    validityDays: DEV_CA_VALIDITY_DAYS,
  });
  const hosts = [
    ...new Set([
      '127.0.0.1',
      'localhost',
      '::1',
      ...(host === '0.0.0.0' || host === '::' ? [] : [host]),
    ]),
  ];
  await makeDirectories(dir);
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  await writeFile(join(dir, 'ca.crt'), ca.certificatePem);
  await writeDevServingCertificate(ca, hosts, certFile, keyFile);
  return { ca, hosts, caPem: ca.certificatePem, certFile, keyFile };
}

/**
 * Starts the caches; a failure that is not already one of voe's errors (or is a request that got
 * no answer: KubeError) becomes WEBHOOK_API_FAILED naming the API server the kubeconfig points to.
 */
async function startCachesExplained<C>(
  startCaches: (kubeConfig: KubeConfig, logger: Logger) => Promise<StartedCaches<C>>,
  kubeConfig: KubeConfig,
  logger: Logger,
): Promise<StartedCaches<C>> {
  try {
    return await startCaches(kubeConfig, logger);
  } catch (error) {
    // A request that got no answer (KubeError: e.g. discovery at start) is the API server not reached, said below.
    if (isVoeError(error) && !isKubeError(error)) throw error;
    const server = kubeConfig.getCurrentCluster()?.server ?? 'no server in the kubeconfig';
    const why = (error instanceof Error ? error.message : String(error))
      .split('\n')[0]!
      .replace(/; check that the API server is reachable$/, '')
      .slice(0, 300);
    throw new WebhookError(
      'WEBHOOK_API_FAILED',
      `Cannot start watching the cluster at ${server}: ${why}. Check --kubeconfig and that the API server is reachable.`,
    );
  }
}

/**
 * Runs the webhook: starts the caches, builds the validators, serves HTTPS; in dev mode also
 * creates certificates and registers a ValidatingWebhookConfiguration pointing at this process
 * (removed again by stop()). The caches and validators are injected so the cli wires the real
 * informers (src/kube) and decisions.
 */
export async function serveWebhook<C>(options: ServeWebhookOptions<C>): Promise<ServingWebhook> {
  const log = options.logger;
  // Each cleanup undoes one step; `left` says what stays behind if it fails, and how to remove it by hand.
  const cleanups: Array<{ run: () => Promise<void>; left: (why: string) => string }> = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      const failures: string[] = [];
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup.run();
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          log.error({ error: why }, 'cleanup failed while stopping the webhook');
          failures.push(cleanup.left(why));
        }
      }
      if (failures.length > 0) throw new WebhookError('WEBHOOK_CLEANUP_FAILED', failures.join(' '));
    })();
    return stopped;
  };
  // Start-up stops when asked to: `signal` ends every wait at once, and the next step throws why.
  const signal = options.signal;
  /** Between the steps of the start-up: stop there when asked to (the catch below undoes what was done). */
  const continueUnlessAborted = (): void => {
    if (signal?.aborted) {
      throw new WebhookError(
        'WEBHOOK_START_ABORTED',
        'The webhook was stopped while starting; what the start-up had changed was undone.',
      );
    }
  };
  try {
    continueUnlessAborted();
    let certFile = options.tlsCertFile;
    let keyFile = options.tlsKeyFile;
    let caPem: string | undefined;
    let certDir: string | undefined;
    if (options.dev && (certFile || keyFile)) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        '--tls-cert-file and --tls-key-file serve in cluster; --dev generates its own certificate. Give one or the other.',
      );
    }
    if (!options.dev && options.certDir) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        '--cert-dir is where --dev writes its certificate; without --dev give --tls-cert-file and --tls-key-file.',
      );
    }
    if (options.dev) {
      certDir = options.certDir;
      if (certDir !== undefined) {
        // One instance per --cert-dir: a second one (the same command run again) would overwrite
        // the certificate the first one serves and registered, and the API server would then
        // refuse every covered write (certificate signed by unknown authority).
        const releaseDir = await lockCertDir(certDir);
        cleanups.push({
          run: releaseDir,
          left: (why) =>
            `Could not release ${join(certDir as string, CERT_DIR_LOCK)}: ${why}. Remove it by hand if no voe serve --dev uses ${certDir}.`,
        });
        continueUnlessAborted();
      }
      if (certDir === undefined) {
        const temp = await mkdtemp(join(tmpdir(), DEV_CERT_DIR_PREFIX)).catch((error: unknown) => {
          throw new WebhookError(
            'WEBHOOK_INVALID_OPTIONS',
            `The temporary directory for the dev certificate cannot be created in ${tmpdir()} ` +
              `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set TMPDIR to a writable directory, or pass --cert-dir.`,
            { cause: error },
          );
        });
        certDir = temp;
        // Also removed if the process ends without this clean-up (e.g. `voe demo` interrupted): it holds the dev key.
        const forgetAtExit = removeDirAtExit(temp);
        cleanups.push({
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
        continueUnlessAborted();
      }
      const written = certDir;
      const dev = await writeDevCertificates(written, options.host).catch((error: unknown) => {
        throw certDirUnwritable(
          written,
          (error as NodeJS.ErrnoException).code ?? (error as Error).message,
          error,
        );
      });
      ({ caPem, certFile, keyFile } = dev);
      const renewal = startDevCertificateRenewal({
        ca: dev.ca,
        hosts: dev.hosts,
        certFile: dev.certFile,
        keyFile: dev.keyFile,
        logger: log,
        ...(options.devCertificateRenewMs === undefined
          ? {}
          : { renewEveryMs: options.devCertificateRenewMs }),
      });
      cleanups.push({
        run: () => renewal.stop(),
        left: (why) => `Could not stop renewing the dev certificate: ${why}.`,
      });
      log.info({ certDir }, 'dev certificates written (ca.crt, tls.crt, tls.key)');
      continueUnlessAborted();
    } else if (!certFile || !keyFile) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        'Serving in cluster needs --tls-cert-file and --tls-key-file (or --dev to generate a local certificate).',
      );
    }

    const started = await startCachesExplained(options.startCaches, options.kubeConfig, log);
    cleanups.push({
      run: () => started.stop(),
      left: (why) => `Could not stop the informers cleanly: ${why}.`,
    });
    continueUnlessAborted();
    const validators = options.createValidators(started.caches, { logger: log });
    const server = createWebhookServer({
      validators,
      tls: { certFile: certFile!, keyFile: keyFile! },
      ready: () => started.ready(),
      logger: log,
      cacheStatus: () => ({
        unsynced: started.unsynced(),
        notServed: started.notServed(),
        notRead: started.notRead?.() ?? [],
      }),
      ...(options.registry ? { registry: options.registry } : {}),
    });
    const address = await server.listen(options.port, options.host);
    cleanups.push({
      run: () => server.close(),
      left: (why) => `Could not close the webhook server cleanly: ${why}.`,
    });
    continueUnlessAborted();
    const url = `https://${urlHost(address.address)}:${address.port}`;

    let configurationName: string | undefined;
    if (options.dev) {
      const name = options.configurationName ?? DEV_CONFIGURATION_NAME;
      const cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? 120_000;
      const synced = await waitFor(() => started.ready(), cacheSyncTimeoutMs, signal);
      continueUnlessAborted();
      if (!synced) {
        const unsynced = started.unsynced();
        throw new WebhookError(
          'WEBHOOK_REGISTRATION_FAILED',
          `The informer caches did not sync within ${Math.round(cacheSyncTimeoutMs / 1000)} s${unsynced.length ? `: ${unsynced.join(', ')} never listed` : ''}; ` +
            "the webhook was not registered. The log says why ('informer list/watch failed', e.g. 403 Forbidden: check RBAC for get/list/watch).",
        );
      }
      // Marked with this instance, so another voe serve --dev neither replaces it while we answer nor deletes it.
      const owner: DevOwner = {
        host: hostname(),
        pid: process.pid,
        id: randomBytes(8).toString('hex'),
        url,
      };
      const body = buildValidatingWebhookConfiguration({
        name,
        urlBase: url,
        caBundle: caPem!,
        annotations: devOwnerAnnotations(owner),
        ...(options.settingName ? { settingName: options.settingName } : {}),
      });
      const { uid } = await registerDevConfiguration(options.kubeConfig, body, {
        logger: log,
        ...(signal ? { signal } : {}),
      }).catch((error: unknown) => {
        continueUnlessAborted(); // stopped while it retried: that is why
        throw error;
      });
      cleanups.push({
        run: async () => {
          // Only the object we created (uid precondition): the name may hold someone else's by now.
          let outcome;
          try {
            outcome = await deleteValidatingWebhookConfiguration(options.kubeConfig, name, { uid });
          } catch (error) {
            // The API server's (or the connection's) own words; `left` says the rest.
            const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
            throw new Error(apiErrorOf(cause)?.message || String(cause), { cause: error });
          }
          if (outcome === 'deleted')
            log.info({ configuration: name, uid }, 'ValidatingWebhookConfiguration removed');
          else if (outcome === 'gone')
            log.warn(
              { configuration: name, uid },
              'ValidatingWebhookConfiguration was already deleted by someone else',
            );
          else
            log.warn(
              { configuration: name, uid },
              'ValidatingWebhookConfiguration of this name is no longer the one this instance registered (another uid): left as it is',
            );
        },
        left: (why) =>
          `Could not remove ValidatingWebhookConfiguration ${name} (uid ${uid}): ${why.replace(/\.$/, '')}. ` +
          `It still sends PVC storage request changes, VM volumeClaimTemplates changes and the Setting to ${url}, which no longer answers: ` +
          `with failurePolicy Fail the API server refuses them until it is deleted. Delete it by hand: kubectl delete validatingwebhookconfiguration ${name}`,
      });
      // Says so when someone else deletes or edits it; stopped (cleanups run in reverse) before we delete it ourselves.
      const watching = watchDevRegistration({
        kubeConfig: options.kubeConfig,
        name,
        uid,
        logger: log,
      });
      cleanups.push({
        run: () => watching.stop(),
        left: (why) => `Could not stop watching ValidatingWebhookConfiguration ${name}: ${why}.`,
      });
      configurationName = name;
      log.info(
        { configuration: name, uid, url, webhooks: body.webhooks?.map((w) => w.name) },
        'ValidatingWebhookConfiguration registered',
      );
      continueUnlessAborted();
      const registrationTimeoutMs = options.registrationTimeoutMs ?? 30_000;
      const check = await confirmApiServerCalls({
        kubeConfig: options.kubeConfig,
        metricsText: () => server.registry.metrics(),
        settingName: options.settingName ?? EXPAND_VALIDATION_SETTING_NAME,
        timeoutMs: registrationTimeoutMs,
        ...(signal ? { signal } : {}),
      });
      continueUnlessAborted();
      if (check === 'timeout') {
        throw new WebhookError(
          'WEBHOOK_REGISTRATION_FAILED',
          `The API server did not call the webhook at ${url} within ${Math.round(registrationTimeoutMs / 1000)} s of its registration; ` +
            'it must reach this address: with --dev on 127.0.0.1 the API server has to run on this machine, outside any container ' +
            '(e.g. voe cluster; not kind, whose API server runs in a container); otherwise pass a --bind-address the API server can reach, ' +
            'or deploy the webhook in the cluster. The configuration was removed.',
        );
      }
      if (check === 'unverifiable') {
        log.warn(
          { configuration: name },
          'could not confirm that the API server calls the webhook (Harvester Settings not served, or not allowed to create them); it picks up the configuration within a moment',
        );
      } else {
        log.info({ configuration: name }, 'the API server calls the webhook');
      }
    }
    return {
      address,
      url,
      stop,
      drain: () => server.drain(),
      ...(certDir === undefined ? {} : { certDir }),
      ...(configurationName === undefined ? {} : { configurationName }),
    };
  } catch (error) {
    try {
      await stop();
    } catch (cleanupError) {
      // What is left behind matters more than why start-up failed; both are said.
      const start =
        isVoeError(error) && error.code !== 'WEBHOOK_START_ABORTED'
          ? ` (cleaning up after ${error.code}: ${error.message})`
          : '';
      throw new WebhookError(
        'WEBHOOK_CLEANUP_FAILED',
        `${(cleanupError as Error).message}${start}`,
        { cause: error },
      );
    }
    throw error;
  }
}
