import { InvalidArgumentError, type Command } from 'commander';
import { isDnsLabel, isDnsSubdomain } from '../../kube/index.js';
import {
  ensureWebhookCertificates,
  kubeCertificateStore,
  TlsError,
  type EnsureWebhookCertificatesReport,
} from '../../tls/index.js';
import { loadKubeConfigOr } from '../load-kube-config-or.js';

interface EnsureFlags {
  namespace: string;
  service: string;
  clusterDomain: string;
  caSecret: string;
  tlsSecret: string;
  webhookConfiguration: string[];
  caValidityDays: number;
  certValidityDays: number;
  renewBeforeDays: number;
  kubeconfig?: string;
  json?: boolean;
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > 36_500)
    throw new InvalidArgumentError('must be a whole number of days from 1 to 36500');
  return days;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function usage(message: string): TlsError {
  return new TlsError('TLS_INVALID_OPTIONS', message);
}

/** One line per certificate and configuration, for a person (or a Job's log). */
export function formatEnsureReport(report: EnsureWebhookCertificatesReport): string {
  const lines = [
    `CA: ${report.ca.action}${report.ca.why ? ` (${report.ca.why})` : ''}, valid until ${report.ca.notAfter}`,
    `serving certificate: ${report.serving.action}${report.serving.why ? ` (${report.serving.why})` : ''}, valid until ${report.serving.notAfter}, for ${report.serving.hosts.join(', ')}`,
    `CA bundle: ${report.bundleCertificates} certificate${report.bundleCertificates === 1 ? '' : 's'}`,
    ...report.webhookConfigurations.map(
      (entry) =>
        `ValidatingWebhookConfiguration ${entry.name}: ${
          entry.caBundle === 'absent' ? 'not there (yet); skipped' : `caBundle ${entry.caBundle}`
        }`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** `voe certs ensure`: the webhook's self-managed CA and serving certificate (see docs/install.md). */
export function register(program: Command): void {
  const certs = program
    .command('certs')
    .description("The admission webhook's self-managed certificates, kept in Secrets");
  ensureCommand(certs).action(runEnsure);
}

/** `certs ensure` and its flags. */
function ensureCommand(certs: Command): Command {
  return certs
    .command('ensure')
    .description(
      'Create the CA and serving certificate Secrets when missing, replace a certificate that has --renew-before-days left (or is unusable, not signed by the current CA, or lacks a host of the Service), ' +
        "and keep each named ValidatingWebhookConfiguration's caBundle equal to the current CA plus the replaced one while it is valid. " +
        'The caBundle is updated before the serving certificate, so the webhook (which reloads its files) is trusted throughout. Changes nothing when nothing is due. ' +
        'Exit 0 when done, 2 on an error (a concurrent change: run it again)',
    )
    .requiredOption('--namespace <namespace>', "the webhook's namespace (Secrets and Service)")
    .option('--service <name>', "the webhook's Service", 'voe-webhook')
    .option('--cluster-domain <domain>', "the cluster's DNS domain", 'cluster.local')
    .option(
      '--ca-secret <name>',
      'the Secret holding the CA (ca.crt, ca.key, ca-previous.crt)',
      'voe-webhook-ca',
    )
    .option(
      '--tls-secret <name>',
      'the Secret holding the serving certificate (tls.crt, tls.key, ca.crt)',
      'voe-webhook-tls',
    )
    .option(
      '--webhook-configuration <name>',
      'a ValidatingWebhookConfiguration whose caBundle to keep in sync (repeatable; one not there yet is skipped)',
      collect,
      [] as string[],
    )
    .option('--ca-validity-days <days>', 'validity of a new CA', parseDays, 3650)
    .option('--cert-validity-days <days>', 'validity of a new serving certificate', parseDays, 365)
    .option(
      '--renew-before-days <days>',
      'replace a certificate when it has this many days left',
      parseDays,
      30,
    )
    .option(
      '--kubeconfig <file>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config or in-cluster)',
    )
    .option('--json', 'print what was done as JSON');
}

/** The names the flags give, checked (TLS_INVALID_OPTIONS otherwise). Pure. */
function checkEnsureFlags(flags: EnsureFlags): void {
  if (!isDnsLabel(flags.namespace))
    throw usage(
      `--namespace ${JSON.stringify(flags.namespace.slice(0, 300))} is not a namespace name.`,
    );
  if (!isDnsLabel(flags.service))
    throw usage(`--service ${JSON.stringify(flags.service.slice(0, 300))} is not a Service name.`);
  for (const name of [flags.caSecret, flags.tlsSecret, ...flags.webhookConfiguration]) {
    if (!isDnsSubdomain(name))
      throw usage(
        `${JSON.stringify(name.slice(0, 300))} is not an object name (lower-case DNS subdomain).`,
      );
  }
  if (flags.caSecret === flags.tlsSecret)
    throw usage('--ca-secret and --tls-secret must name two different Secrets.');
}

/** Ensures the certificates with the flags' names and periods, then prints the report. */
async function runEnsure(flags: EnsureFlags): Promise<void> {
  checkEnsureFlags(flags);
  const kubeConfig = loadKubeConfigOr(flags.kubeconfig, usage);
  const report = await ensureWebhookCertificates({
    store: kubeCertificateStore(kubeConfig, flags.namespace),
    namespace: flags.namespace,
    serviceName: flags.service,
    clusterDomain: flags.clusterDomain,
    caSecretName: flags.caSecret,
    tlsSecretName: flags.tlsSecret,
    webhookConfigurations: [...new Set(flags.webhookConfiguration)],
    caValidityDays: flags.caValidityDays,
    certificateValidityDays: flags.certValidityDays,
    renewBeforeDays: flags.renewBeforeDays,
  });
  process.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatEnsureReport(report),
  );
}
