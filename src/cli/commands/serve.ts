import { Command, InvalidArgumentError, Option } from 'commander';
import { loadKubeConfig, realClock, sleep } from '../../kube/index.js';
import { createLogger, type Logger } from '../../log/index.js';
import {
  admissionWiring,
  DEV_CONFIGURATION_NAME,
  serveWebhook,
  WebhookError,
  type ServingWebhook,
} from '../../webhook/index.js';
import {
  addAdmissionFlags,
  admissionOptionsFromFlags,
  type AdmissionFlags,
} from '../admission-flags.js';
import { watchStopRequests, type StopReason, type StopRequests } from '../stop-requests.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';

interface ServeFlags extends AdmissionFlags {
  longhorn: 'auto' | 'on' | 'off';
  kubeconfig?: string;
  dev?: boolean;
  certDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  port: number;
  bindAddress?: string;
  webhookConfigurationName: string;
  logLevel: string;
  cacheSyncTimeout?: number;
  registrationTimeout?: number;
  shutdownDelay: number;
}

/** Most seconds `--shutdown-delay` accepts: well within a pod's termination grace period. */
const MAX_SHUTDOWN_DELAY_S = 300;

function parseShutdownDelay(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_SHUTDOWN_DELAY_S)
    throw new InvalidArgumentError(`must be a number of seconds from 0 to ${MAX_SHUTDOWN_DELAY_S}`);
  return seconds;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535 (0 picks a free port)');
  return port;
}

export function register(program: Command): void {
  const command = program
    .command('serve')
    .description(
      'Serve the admission webhooks (PVC resize, VM volumeClaimTemplates, Setting) over HTTPS, with /livez, /readyz and /metrics',
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster to watch (default: $KUBECONFIG, ~/.kube/config, then in-cluster)',
    )
    .option(
      '--dev',
      'run on this machine against a cluster whose API server runs here too (e.g. voe cluster; for kind or a remote cluster pass a --bind-address it can reach): generate a CA and serving certificate, listen on 127.0.0.1, register a ValidatingWebhookConfiguration with url and caBundle, remove it on SIGINT, SIGTERM or SIGHUP (also when stopped during start-up)',
    )
    .option(
      '--cert-dir <dir>',
      'with --dev: write ca.crt, tls.crt and tls.key here (default: a temporary directory removed on exit, or by the next voe serve --dev if this one was killed)',
    )
    .option(
      '--tls-cert-file <file>',
      'without --dev: serving certificate (PEM); reloaded when it changes',
    )
    .option('--tls-key-file <file>', 'without --dev: serving key (PEM); reloaded when it changes')
    .option('--port <port>', 'port to listen on (0 picks a free port)', parsePort, 9443)
    .option(
      '--bind-address <address>',
      'address to listen on (default: 127.0.0.1 with --dev, 0.0.0.0 otherwise)',
    )
    .option(
      '--webhook-configuration-name <name>',
      'with --dev: name of the ValidatingWebhookConfiguration to register (an existing one is only replaced when a voe serve --dev that no longer answers left it)',
      DEV_CONFIGURATION_NAME,
    )
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .addOption(
      new Option(
        '--longhorn <mode>',
        'watch Longhorn Volumes, Engines and Settings: auto = while the cluster serves longhorn.io/v1beta2 (looked for every 5 s; found after start, read once listed, voe staying ready if it cannot list them: see docs/webhook.md)',
      )
        .choices(['auto', 'on', 'off'])
        .default('auto'),
    )
    .addOption(
      new Option(
        '--cache-sync-timeout <seconds>',
        'with --dev: how long to wait for the caches before registering (default 120; raise it for a large cluster)',
      ).argParser(parseWaitSeconds),
    )
    .addOption(
      new Option(
        '--registration-timeout <seconds>',
        "with --dev: how long to wait for the API server's first call after registering (default 30)",
      ).argParser(parseWaitSeconds),
    )
    .addOption(
      new Option(
        '--shutdown-delay <seconds>',
        "without --dev: on SIGTERM (or SIGINT, SIGHUP) keep answering this long before closing, while the pod leaves the Service's endpoints (a call that finds the port closed is refused under failurePolicy Fail), every answer meanwhile with Connection: close so clients stop reusing connections the close would cut; a second signal closes at once",
      )
        .default(0)
        .argParser(parseShutdownDelay),
    );
  addAdmissionFlags(command).action(async (flags: ServeFlags) => {
    const logger = createLogger({ name: 'voe-webhook', level: flags.logLevel });
    // Before anything changes in the cluster or on disk: a signal or an uncaught error from here on
    // undoes what was done (registration, server, temporary certificate dir), also during start-up.
    // A second request ends the --shutdown-delay wait at once.
    const hurry = new AbortController();
    const stops = watchStopRequests(process, (reason) => {
      hurry.abort();
      logger.warn(describeStop(reason), 'already stopping; waiting for the cleanup to finish');
    });
    try {
      await serve(flags, logger, stops, hurry.signal);
    } finally {
      stops.dispose();
    }
  });
}

function describeStop(reason: StopReason): Record<string, unknown> {
  if (reason.kind === 'signal') return { signal: reason.signal };
  if (reason.kind === 'output-closed') return { output: 'the reader of standard output went away' };
  return {
    [reason.origin]: reason.error instanceof Error ? reason.error.message : String(reason.error),
  };
}

async function serve(
  flags: ServeFlags,
  logger: Logger,
  stops: StopRequests,
  hurry: AbortSignal,
): Promise<void> {
  const options = admissionOptionsFromFlags(
    flags,
    (message) => new WebhookError('WEBHOOK_INVALID_OPTIONS', message),
  );
  if (flags.dev && flags.shutdownDelay > 0) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--shutdown-delay applies only without --dev: --dev removes its registration first, so the API server stops calling at once. Remove it, or drop --dev.',
    );
  }
  if (!flags.dev) {
    // They govern the registration only --dev makes: silently ignored, they would mislead.
    const devOnly = [
      flags.webhookConfigurationName !== DEV_CONFIGURATION_NAME
        ? '--webhook-configuration-name'
        : '',
      flags.cacheSyncTimeout !== undefined ? '--cache-sync-timeout' : '',
      flags.registrationTimeout !== undefined ? '--registration-timeout' : '',
    ].filter(Boolean);
    if (devOnly.length > 0) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        `${devOnly.join(', ')} ${devOnly.length > 1 ? 'apply' : 'applies'} only with --dev (to the ValidatingWebhookConfiguration it registers); ` +
          'in cluster the configuration is installed with the webhook (manifests/webhook.yaml). Remove them, or add --dev.',
      );
    }
  }
  const kubeConfig = loadKubeConfig(flags.kubeconfig);
  const wiring = admissionWiring({
    options,
    longhorn: flags.longhorn === 'auto' ? 'auto' : flags.longhorn === 'on',
  });
  let serving: ServingWebhook | undefined;
  try {
    serving = await serveWebhook({
      kubeConfig,
      logger,
      signal: stops.signal,
      dev: flags.dev === true,
      host: flags.bindAddress ?? (flags.dev ? '127.0.0.1' : '0.0.0.0'),
      port: flags.port,
      ...(flags.certDir ? { certDir: flags.certDir } : {}),
      ...(flags.tlsCertFile ? { tlsCertFile: flags.tlsCertFile } : {}),
      ...(flags.tlsKeyFile ? { tlsKeyFile: flags.tlsKeyFile } : {}),
      configurationName: flags.webhookConfigurationName,
      settingName: options.settingName,
      ...(flags.cacheSyncTimeout === undefined
        ? {}
        : { cacheSyncTimeoutMs: flags.cacheSyncTimeout * 1000 }),
      ...(flags.registrationTimeout === undefined
        ? {}
        : { registrationTimeoutMs: flags.registrationTimeout * 1000 }),
      startCaches: wiring.startCaches,
      createValidators: wiring.createValidators,
    });
  } catch (error) {
    // Stopped during start-up: serveWebhook has undone what it did (else it threw WEBHOOK_CLEANUP_FAILED).
    if (!(error instanceof WebhookError && error.code === 'WEBHOOK_START_ABORTED')) {
      if (stops.signal.aborted) exitSoon();
      throw error;
    }
  }
  if (serving) {
    process.stderr.write(
      `voe serve: webhooks at ${serving.url}${serving.configurationName ? ` (registered ValidatingWebhookConfiguration ${serving.configurationName}; SIGINT/SIGTERM/SIGHUP removes it)` : ''}\n`,
    );
  }
  const reason = await stops.requested;
  if (reason.kind === 'error') {
    // Said first: the cleanup below may fail too, and that is what the exit reports then.
    const error = reason.error;
    logger.error(describeStop(reason), 'stopping after an uncaught error');
    process.stderr.write(
      `voe: ${reason.origin}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  // From here on every answer closes its connection.
  serving?.drain();
  if (serving && reason.kind === 'signal' && flags.shutdownDelay > 0 && !hurry.aborted) {
    // In cluster the pod leaves the Service's endpoints only after the signal: keep answering meanwhile,
    // each answer closing its connection, so the clients' next requests open new ones (to other pods)
    // rather than reuse one that the close would cut.
    logger.info(
      { ...describeStop(reason), seconds: flags.shutdownDelay },
      'stopping after --shutdown-delay; still answering meanwhile, each answer closing its connection (a second signal stops at once)',
    );
    await sleep(realClock, flags.shutdownDelay * 1000, hurry); // resolves early when hurried
  }
  try {
    if (serving) {
      logger.info(describeStop(reason), 'stopping');
      // Rejects with WEBHOOK_CLEANUP_FAILED (what is left, how to remove it): runCli prints it and exits 2.
      await serving.stop();
    } else {
      logger.info(describeStop(reason), 'stopped during start-up; what it had changed was undone');
    }
  } finally {
    exitSoon();
  }
  if (reason.kind !== 'signal') process.exitCode = 2;
}

/**
 * After the cleanup the process ends by itself once nothing is left running. If something still
 * is (a handle a failed component left open), it must not keep serving half torn down: exit.
 */
function exitSoon(): void {
  setTimeout(() => {
    process.stderr.write('voe serve: still running 2 s after stopping; exiting\n');
    process.exit();
  }, 2_000).unref();
}
