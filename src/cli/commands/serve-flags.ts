import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AdmissionOptions } from '../../admission/index.js';
import { DEV_CONFIGURATION_NAME, WebhookError, type ServingChoice } from '../../webhook/index.js';
import { admissionOptionsFromFlags, type AdmissionFlags } from '../admission-flags.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';

export interface ServeFlags extends AdmissionFlags {
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
  registration?: string;
  namespace?: string;
}

/** Most seconds `--shutdown-delay` accepts: well within a pod's termination grace period. */
const MAX_SHUTDOWN_DELAY_S = 300;

export function parseShutdownDelay(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_SHUTDOWN_DELAY_S)
    throw new InvalidArgumentError(`must be a number of seconds from 0 to ${MAX_SHUTDOWN_DELAY_S}`);
  return seconds;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535 (0 picks a free port)');
  return port;
}

/** voe serve's own flags (the admission flags are added by addAdmissionFlags). */
export function addServeFlags(command: Command): Command {
  return command
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
    )
    .option(
      '--namespace <namespace>',
      'without --dev, with --registration: the namespace of the webhook (its pods and Service)',
    )
    .option(
      '--registration <name>',
      'without --dev, with --namespace: the ValidatingWebhookConfiguration calling this webhook; deleted when voe serve stops while --namespace is being deleted (its Service goes with it; kept on any other stop)',
    );
}

/** Where the webhook listens, and the flags its ServingSetup is chosen from (chooseServingSetup). */
export type WebhookFlagOptions = ServingChoice & { host: string; port: number };

/** What voe serve does, read from its flags. */
export interface ServePlan {
  admission: AdmissionOptions;
  /** Whether Longhorn's resources are watched (admissionWiring's `longhorn`). */
  longhorn: boolean | 'auto';
  webhook: WebhookFlagOptions;
  /** --shutdown-delay, in seconds. */
  shutdownDelay: number;
}

/**
 * Checks voe serve's flags against each other (WEBHOOK_INVALID_OPTIONS for flags that do not go
 * together) and says what to serve.
 */
export function servePlan(flags: ServeFlags): ServePlan {
  const admission = admissionOptionsFromFlags(
    flags,
    (message) => new WebhookError('WEBHOOK_INVALID_OPTIONS', message),
  );
  if (flags.dev && flags.shutdownDelay > 0) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--shutdown-delay applies only without --dev: --dev removes its registration first, so the API server stops calling at once. Remove it, or drop --dev.',
    );
  }
  if ((flags.registration === undefined) !== (flags.namespace === undefined)) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--registration and --namespace go together: give both (the chart does) or neither.',
    );
  }
  if (flags.dev && flags.registration !== undefined) {
    throw new WebhookError(
      'WEBHOOK_INVALID_OPTIONS',
      '--registration applies only without --dev: --dev removes its own registration on every stop.',
    );
  }
  if (!flags.dev) checkNoDevOnlyFlags(flags);
  return {
    admission,
    longhorn: flags.longhorn === 'auto' ? 'auto' : flags.longhorn === 'on',
    webhook: {
      dev: flags.dev === true,
      host: flags.bindAddress ?? (flags.dev ? '127.0.0.1' : '0.0.0.0'),
      port: flags.port,
      ...(flags.certDir ? { certDir: flags.certDir } : {}),
      ...(flags.tlsCertFile ? { tlsCertFile: flags.tlsCertFile } : {}),
      ...(flags.tlsKeyFile ? { tlsKeyFile: flags.tlsKeyFile } : {}),
      configurationName: flags.webhookConfigurationName,
      settingName: admission.settingName,
      ...(flags.cacheSyncTimeout === undefined
        ? {}
        : { cacheSyncTimeoutMs: flags.cacheSyncTimeout * 1000 }),
      ...(flags.registrationTimeout === undefined
        ? {}
        : { registrationTimeoutMs: flags.registrationTimeout * 1000 }),
    },
    shutdownDelay: flags.shutdownDelay,
  };
}

/** Without --dev: the flags that govern the registration only --dev makes, silently ignored, would mislead. */
function checkNoDevOnlyFlags(flags: ServeFlags): void {
  const devOnly = [
    flags.webhookConfigurationName !== DEV_CONFIGURATION_NAME ? '--webhook-configuration-name' : '',
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
