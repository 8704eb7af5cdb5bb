import { Command, InvalidArgumentError, Option } from 'commander';
import { loadKubeConfig } from '../../kube/index.js';
import { createLogger } from '../../log/index.js';
import { admissionWiring, DEV_CONFIGURATION_NAME, serveWebhook, WebhookError } from '../../webhook/index.js';
import { addAdmissionFlags, admissionOptionsFromFlags, type AdmissionFlags } from '../admission-flags.js';

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
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535 (0 picks a free port)');
  return port;
}

export function register(program: Command): void {
  const command = program.command('serve')
    .description('Serve the admission webhooks (PVC resize, VM volumeClaimTemplates, Setting) over HTTPS, with /livez, /readyz and /metrics')
    .option('--kubeconfig <file>', 'kubeconfig of the cluster to watch (default: $KUBECONFIG, ~/.kube/config, then in-cluster)')
    .option('--dev', 'run on this machine against a cluster whose API server runs here too (e.g. voe cluster; for kind or a remote cluster pass a --bind-address it can reach): generate a CA and serving certificate, listen on 127.0.0.1, register a ValidatingWebhookConfiguration with url and caBundle, remove it on SIGINT/SIGTERM')
    .option('--cert-dir <dir>', 'with --dev: write ca.crt, tls.crt and tls.key here (default: a temporary directory removed on exit)')
    .option('--tls-cert-file <file>', 'without --dev: serving certificate (PEM); reloaded when it changes')
    .option('--tls-key-file <file>', 'without --dev: serving key (PEM); reloaded when it changes')
    .option('--port <port>', 'port to listen on (0 picks a free port)', parsePort, 9443)
    .option('--bind-address <address>', 'address to listen on (default: 127.0.0.1 with --dev, 0.0.0.0 otherwise)')
    .option('--webhook-configuration-name <name>', 'with --dev: name of the ValidatingWebhookConfiguration to register (an existing one is only replaced when a voe serve --dev that no longer answers left it)', DEV_CONFIGURATION_NAME)
    .addOption(new Option('--log-level <level>', 'log level').choices(['trace', 'debug', 'info', 'warn', 'error']).default('info'))
    .addOption(new Option('--longhorn <mode>', 'watch Longhorn Volumes, Engines and Settings: auto = when the cluster serves longhorn.io/v1beta2').choices(['auto', 'on', 'off']).default('auto'));
  addAdmissionFlags(command)
    .action(async (flags: ServeFlags) => {
      const logger = createLogger({ name: 'voe-webhook', level: flags.logLevel });
      const options = admissionOptionsFromFlags(flags, (message) => new WebhookError('WEBHOOK_INVALID_OPTIONS', message));
      const kubeConfig = loadKubeConfig(flags.kubeconfig);
      const wiring = admissionWiring({ options, longhorn: flags.longhorn === 'auto' ? 'auto' : flags.longhorn === 'on' });
      const serving = await serveWebhook({
        kubeConfig,
        logger,
        dev: flags.dev === true,
        host: flags.bindAddress ?? (flags.dev ? '127.0.0.1' : '0.0.0.0'),
        port: flags.port,
        ...(flags.certDir ? { certDir: flags.certDir } : {}),
        ...(flags.tlsCertFile ? { tlsCertFile: flags.tlsCertFile } : {}),
        ...(flags.tlsKeyFile ? { tlsKeyFile: flags.tlsKeyFile } : {}),
        configurationName: flags.webhookConfigurationName,
        settingName: options.settingName,
        startCaches: wiring.startCaches,
        createValidators: wiring.createValidators,
      });
      process.stderr.write(`voe serve: webhooks at ${serving.url}${serving.configurationName ? ` (registered ValidatingWebhookConfiguration ${serving.configurationName}; SIGINT/SIGTERM removes it)` : ''}\n`);
      await new Promise<void>((resolve) => {
        const onSignal = (signal: NodeJS.Signals): void => {
          logger.info({ signal }, 'stopping');
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
          serving.stop().then(resolve, resolve);
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
    });
}
