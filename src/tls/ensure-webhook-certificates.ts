import type { CertificateAuthority } from './certificate-authority.js';
import {
  isCa,
  keyBelongsTo,
  parseCertificate,
  renewalDueWhy,
  signedBy,
  subjectAltNames,
} from './certificate-renewal.js';
import type { CertificateStore, StoredSecret } from './certificate-store.js';
import { createCertificateAuthority } from './create-certificate-authority.js';
import { issueCertificate } from './issue-certificate.js';
import { loadCertificateAuthority } from './load-certificate-authority.js';
import { TlsError } from './tls-error.js';
import type { X509Certificate } from './x509.js';

/** Keys of the CA Secret: the CA in use, and the one it replaced while that is still valid. */
export const CA_SECRET_KEYS = {
  certificate: 'ca.crt',
  key: 'ca.key',
  previous: 'ca-previous.crt',
} as const;
/** Keys of the serving Secret (type kubernetes.io/tls): what `voe serve --tls-cert-file/--tls-key-file` read, and the CA bundle. */
export const TLS_SECRET_KEYS = { certificate: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } as const;

const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** PEM text ending with a newline (as files and bundles hold it). */
function pemLine(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

export interface EnsureWebhookCertificatesOptions {
  store: CertificateStore;
  /** The webhook Service's namespace and name: the serving certificate is for <name>, <name>.<ns>, <name>.<ns>.svc and <name>.<ns>.svc.<clusterDomain>. */
  namespace: string;
  serviceName: string;
  /** Default cluster.local. */
  clusterDomain?: string;
  caSecretName: string;
  tlsSecretName: string;
  /** ValidatingWebhookConfigurations whose caBundle is kept equal to the CA bundle (one not there yet is skipped). */
  webhookConfigurations: string[];
  /** Default 3650. */
  caValidityDays?: number;
  /** Default 365. */
  certificateValidityDays?: number;
  /** A certificate (CA or serving) is replaced when it has this many days left or fewer. Default 30. */
  renewBeforeDays?: number;
  now?: () => Date;
}

export type CertificateAction = 'created' | 'replaced' | 'kept';

export interface EnsureWebhookCertificatesReport {
  ca: { action: CertificateAction; why?: string; notAfter: string };
  serving: { action: CertificateAction; why?: string; notAfter: string; hosts: string[] };
  /** How many CA certificates the bundle holds (2 while a replaced CA is still valid). */
  bundleCertificates: number;
  webhookConfigurations: Array<{ name: string; caBundle: 'updated' | 'in-sync' | 'absent' }>;
}

/** The serving certificate's hosts for Service `name` in `namespace`. */
export function serviceHosts(
  namespace: string,
  name: string,
  clusterDomain = 'cluster.local',
): string[] {
  return [
    name,
    `${name}.${namespace}`,
    `${name}.${namespace}.svc`,
    `${name}.${namespace}.svc.${clusterDomain}`,
  ];
}

function validDays(name: string, value: number | undefined, fallback: number): number {
  const days = value ?? fallback;
  if (!Number.isFinite(days) || days <= 0)
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      `${name} must be a positive number of days, got ${String(days)}.`,
    );
  return days;
}

/**
 * Why the stored CA cannot stay (undefined when it can, or when there is none): not a CA
 * certificate with its key, or renewBeforeDays or fewer left. Pure.
 */
function caReplaceWhy(
  stored: StoredSecret | undefined,
  certificate: X509Certificate | undefined,
  now: Date,
  renewBeforeDays: number,
): string | undefined {
  if (!stored) return undefined;
  if (!certificate) return `${CA_SECRET_KEYS.certificate} is not a PEM certificate`;
  if (!isCa(certificate)) return `${CA_SECRET_KEYS.certificate} is not a CA certificate`;
  if (!keyBelongsTo(certificate, stored.data[CA_SECRET_KEYS.key]))
    return `${CA_SECRET_KEYS.key} is not the key of ${CA_SECRET_KEYS.certificate}`;
  return renewalDueWhy(certificate, now, renewBeforeDays);
}

interface CaOutcome {
  ca: CertificateAuthority;
  /** The CA this one replaced, while it is still valid. */
  previousPem?: string;
  action: CertificateAction;
  why?: string;
}

/** The CA to use: the stored one while it has more than renewBeforeDays left, else a new one (the old one kept for the bundle). */
async function ensureCa(
  stored: StoredSecret | undefined,
  now: Date,
  days: { ca: number; renewBefore: number },
  name: string,
): Promise<CaOutcome> {
  const certificate = parseCertificate(stored?.data[CA_SECRET_KEYS.certificate]);
  const why = caReplaceWhy(stored, certificate, now, days.renewBefore);
  if (stored && certificate && why === undefined) {
    const ca = await loadCertificateAuthority({
      certificatePem: stored.data[CA_SECRET_KEYS.certificate]!,
      keyPem: stored.data[CA_SECRET_KEYS.key]!,
    });
    const previousPem = stored.data[CA_SECRET_KEYS.previous];
    return { ca, ...(previousPem ? { previousPem } : {}), action: 'kept' };
  }
  const ca = await createCertificateAuthority(name, {
    validityDays: days.ca,
    notBefore: new Date(now.getTime() - CLOCK_SKEW_MS),
  });
  // The replaced CA stays trusted (in the bundle) while it is valid: serving certificates it
  // signed keep working until every webhook pod has read the new one.
  const replaced =
    certificate && isCa(certificate) && now < certificate.notAfter ? certificate : undefined;
  return {
    ca,
    ...(replaced ? { previousPem: replaced.toString('pem') } : {}),
    action: stored ? 'replaced' : 'created',
    ...(why ? { why } : {}),
  };
}

/** Why the stored serving certificate cannot stay (undefined when it can). */
async function servingReplaceWhy(
  stored: StoredSecret,
  ca: CertificateAuthority,
  hosts: string[],
  now: Date,
  renewBeforeDays: number,
): Promise<string | undefined> {
  const certificate = parseCertificate(stored.data[TLS_SECRET_KEYS.certificate]);
  if (!certificate) return `${TLS_SECRET_KEYS.certificate} is not a PEM certificate`;
  if (!keyBelongsTo(certificate, stored.data[TLS_SECRET_KEYS.key]))
    return `${TLS_SECRET_KEYS.key} is not the key of ${TLS_SECRET_KEYS.certificate}`;
  if (!(await signedBy(certificate, ca.certificate))) return 'it is not signed by the current CA';
  const names = subjectAltNames(certificate);
  const missing = hosts.filter((host) => !names.includes(host));
  if (missing.length > 0) return `it does not name ${missing.join(', ')}`;
  return renewalDueWhy(certificate, now, renewBeforeDays);
}

/**
 * Keeps a webhook's self-managed certificates in Secrets and its ValidatingWebhookConfigurations'
 * caBundle in sync, without a restart of the webhook (it reloads its certificate files):
 * 1. the CA Secret: a CA is created when there is none (or it is unusable) and replaced when it has
 *    renewBeforeDays left; the replaced one is kept as ca-previous.crt while it is valid;
 * 2. every named configuration's caBundle is set to the current CA plus the previous one, before
 *    3. the serving Secret (tls.crt, tls.key, ca.crt) is issued again when it is missing, unusable,
 *    not signed by the current CA, missing a host of the Service, or has renewBeforeDays left.
 * So the API server trusts the new CA before any pod serves a certificate it signed, and still
 * trusts the old one while pods serve theirs. Run it repeatedly (a CronJob): a run with nothing
 * due changes nothing.
 */
export async function ensureWebhookCertificates(
  options: EnsureWebhookCertificatesOptions,
): Promise<EnsureWebhookCertificatesReport> {
  const now = options.now?.() ?? new Date();
  const days = validityDays(options);
  const hosts = serviceHosts(options.namespace, options.serviceName, options.clusterDomain);
  const ca = await ensureCaSecret(options, now, days);
  const bundle = caBundleOf(ca, now);
  const webhookConfigurations = await syncCaBundles(
    options.store,
    options.webhookConfigurations,
    bundle.base64,
  );
  const serving = await ensureServingSecret(options, ca.ca, hosts, bundle.pem, now, days);
  return {
    ca: {
      action: ca.action,
      ...(ca.why ? { why: ca.why } : {}),
      notAfter: ca.ca.certificate.notAfter.toISOString(),
    },
    serving: { ...serving, hosts },
    bundleCertificates: bundle.certificates,
    webhookConfigurations,
  };
}

interface ValidityDays {
  ca: number;
  certificate: number;
  renewBefore: number;
}

/** The options' validity periods (defaults filled in); renewBeforeDays must be shorter than both. Pure. */
function validityDays(options: EnsureWebhookCertificatesOptions): ValidityDays {
  const days = {
    ca: validDays('caValidityDays', options.caValidityDays, 3650),
    certificate: validDays('certificateValidityDays', options.certificateValidityDays, 365),
    renewBefore: validDays('renewBeforeDays', options.renewBeforeDays, 30),
  };
  if (days.renewBefore >= days.certificate || days.renewBefore >= days.ca)
    throw new TlsError(
      'TLS_INVALID_OPTIONS',
      `renewBeforeDays (${days.renewBefore}) must be shorter than the CA's (${days.ca}) and the serving certificate's (${days.certificate}) validity, or every run would replace them.`,
    );
  return days;
}

/** Step 1: the CA Secret read, its CA kept or replaced (ensureCa), and written when it changed. */
async function ensureCaSecret(
  options: EnsureWebhookCertificatesOptions,
  now: Date,
  days: ValidityDays,
): Promise<CaOutcome> {
  const { store } = options;
  const stored = await store.readSecret(options.caSecretName);
  const name = `voe webhook CA (${options.namespace}/${options.serviceName})`;
  const outcome = await ensureCa(stored, now, days, name);
  if (outcome.action !== 'kept') {
    const { ca, previousPem } = outcome;
    await store.writeSecret(
      options.caSecretName,
      {
        type: 'Opaque',
        data: {
          [CA_SECRET_KEYS.certificate]: pemLine(ca.certificatePem),
          [CA_SECRET_KEYS.key]: pemLine(ca.keyPem),
          ...(previousPem ? { [CA_SECRET_KEYS.previous]: pemLine(previousPem) } : {}),
        },
      },
      stored,
    );
  }
  return outcome;
}

/** The CA bundle: the current CA, then the one it replaced while that is valid (PEM and base64). Pure. */
function caBundleOf(
  { ca, previousPem }: CaOutcome,
  now: Date,
): { pem: string; base64: string; certificates: number } {
  const previous = parseCertificate(previousPem);
  const pems = [ca.certificatePem];
  if (previous && now < previous.notAfter) pems.push(previous.toString('pem'));
  const pem = pems.map(pemLine).join('');
  return { pem, base64: Buffer.from(pem, 'utf8').toString('base64'), certificates: pems.length };
}

/** Step 2: each named ValidatingWebhookConfiguration's caBundle set to `caBundle` (one not there is skipped). */
async function syncCaBundles(
  store: CertificateStore,
  names: string[],
  caBundle: string,
): Promise<EnsureWebhookCertificatesReport['webhookConfigurations']> {
  const configurations: EnsureWebhookCertificatesReport['webhookConfigurations'] = [];
  for (const name of names) {
    const configuration = await store.readWebhookConfiguration(name);
    if (!configuration) {
      configurations.push({ name, caBundle: 'absent' });
      continue;
    }
    const inSync = configuration.caBundles.every((entry) => entry.caBundle === caBundle);
    if (!inSync) await store.writeCaBundle(name, caBundle, configuration);
    configurations.push({ name, caBundle: inSync ? 'in-sync' : 'updated' });
  }
  return configurations;
}

/**
 * Step 3: the serving Secret issued again when it is missing or cannot stay (servingReplaceWhy),
 * else kept, its ca.crt rewritten when the bundle changed.
 */
async function ensureServingSecret(
  options: EnsureWebhookCertificatesOptions,
  ca: CertificateAuthority,
  hosts: string[],
  bundle: string,
  now: Date,
  days: ValidityDays,
): Promise<Omit<EnsureWebhookCertificatesReport['serving'], 'hosts'>> {
  const { store, tlsSecretName } = options;
  const stored = await store.readSecret(tlsSecretName);
  const why = stored
    ? await servingReplaceWhy(stored, ca, hosts, now, days.renewBefore)
    : undefined;
  if (stored && why === undefined) {
    if (stored.data[TLS_SECRET_KEYS.ca] !== bundle) {
      // Same certificate, but the bundle beside it changed (a CA replaced, or the old one expired).
      await store.writeSecret(
        tlsSecretName,
        { type: 'kubernetes.io/tls', data: { ...stored.data, [TLS_SECRET_KEYS.ca]: bundle } },
        stored,
      );
    }
    // servingReplaceWhy found a certificate there.
    const kept = parseCertificate(stored.data[TLS_SECRET_KEYS.certificate])!;
    return { action: 'kept', notAfter: kept.notAfter.toISOString() };
  }
  const serving = await issueCertificate(ca, {
    commonName: `${options.serviceName}.${options.namespace}.svc`,
    hosts,
    usages: ['server'],
    validityDays: days.certificate,
    notBefore: new Date(now.getTime() - CLOCK_SKEW_MS),
  });
  await store.writeSecret(
    tlsSecretName,
    {
      type: 'kubernetes.io/tls',
      data: {
        [TLS_SECRET_KEYS.certificate]: pemLine(serving.certificatePem),
        [TLS_SECRET_KEYS.key]: pemLine(serving.keyPem),
        [TLS_SECRET_KEYS.ca]: bundle,
      },
    },
    stored,
  );
  return {
    action: stored ? 'replaced' : 'created',
    ...(why ? { why } : {}),
    notAfter: serving.certificate.notAfter.toISOString(),
  };
}
