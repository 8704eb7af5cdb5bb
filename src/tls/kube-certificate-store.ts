import type { V1Secret, V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import {
  apiErrorOf,
  isAlreadyExists,
  isConflict,
  isNotFound,
  requestJson,
  resourcePath,
  type KubeClientConfig,
} from '../kube/index.js';
import type {
  CertificateStore,
  StoredSecret,
  StoredWebhookConfiguration,
} from './certificate-store.js';
import { TlsError } from './tls-error.js';

/** Labels of the Secrets the store writes. */
export const CERTIFICATE_SECRET_LABELS = {
  'app.kubernetes.io/name': 'voe',
  'app.kubernetes.io/component': 'webhook-certificates',
  'app.kubernetes.io/managed-by': 'voe-certs',
} as const;

function decode(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, 'base64').toString('utf8'),
    ]),
  );
}

function encode(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      Buffer.from(value, 'utf8').toString('base64'),
    ]),
  );
}

/** A write that lost a race: the Job or CronJob fails and runs again (its backoff), reading anew. */
function conflict(what: string, cause: unknown): TlsError {
  return new TlsError(
    'TLS_CERTIFICATES_CONFLICT',
    `${what} changed while voe certs was updating it (another voe certs ran at the same time?); run it again.`,
    { cause },
  );
}

/** What the API server said, for a TLS_CERTIFICATES_FAILED message. */
function said(error: unknown): string {
  const api = apiErrorOf(error);
  return api
    ? `${api.code} ${api.reason}: ${api.message}`
    : error instanceof Error
      ? error.message
      : String(error);
}

function failed(what: string, cause: unknown): TlsError {
  if (isConflict(cause) || isAlreadyExists(cause)) return conflict(what, cause);
  return new TlsError('TLS_CERTIFICATES_FAILED', `${what}: ${said(cause)}`, { cause });
}

const secretPath = (namespace: string, name?: string): string =>
  resourcePath({ group: '', version: 'v1', plural: 'secrets', namespace, name });

const configurationPath = (name: string): string =>
  resourcePath({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    plural: 'validatingwebhookconfigurations',
    name,
  });

/** The CertificateStore of a cluster: Secrets in `namespace`, cluster-scoped ValidatingWebhookConfigurations. */
export function kubeCertificateStore(
  kubeConfig: KubeClientConfig,
  namespace: string,
): CertificateStore {
  return {
    async readSecret(name): Promise<StoredSecret | undefined> {
      try {
        const secret = await requestJson<V1Secret>(kubeConfig, {
          method: 'GET',
          path: secretPath(namespace, name),
        });
        return {
          data: decode(secret.data),
          resourceVersion: secret.metadata?.resourceVersion ?? '',
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw failed(`cannot read the Secret ${namespace}/${name}`, error);
      }
    },
    async writeSecret(name, secret, previous): Promise<void> {
      const body = secretBody(namespace, name, secret, previous);
      try {
        if (previous)
          await requestJson(kubeConfig, { method: 'PUT', path: secretPath(namespace, name), body });
        else await requestJson(kubeConfig, { method: 'POST', path: secretPath(namespace), body });
      } catch (error) {
        throw failed(`cannot write the Secret ${namespace}/${name}`, error);
      }
    },
    async readWebhookConfiguration(name): Promise<StoredWebhookConfiguration | undefined> {
      try {
        const configuration = await requestJson<V1ValidatingWebhookConfiguration>(kubeConfig, {
          method: 'GET',
          path: configurationPath(name),
        });
        return {
          caBundles: (configuration.webhooks ?? []).map((webhook) => ({
            webhook: webhook.name,
            caBundle: webhook.clientConfig.caBundle ?? '',
          })),
          resourceVersion: configuration.metadata?.resourceVersion ?? '',
        };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw failed(`cannot read the ValidatingWebhookConfiguration ${name}`, error);
      }
    },
    async writeCaBundle(name, caBundle, previous): Promise<void> {
      try {
        await requestJson(kubeConfig, {
          method: 'PATCH',
          path: configurationPath(name),
          contentType: 'application/json-patch+json',
          body: caBundlePatch(caBundle, previous),
        });
      } catch (error) {
        // A failed JSON Patch test answers 422 (Invalid, "the server rejected our request due to an
        // error in our request"): the configuration changed since it was read (the patch holds
        // nothing else that could be invalid).
        if (apiErrorOf(error)?.code === 422)
          throw conflict(`The ValidatingWebhookConfiguration ${name}`, error);
        throw failed(
          `cannot set the caBundle of the ValidatingWebhookConfiguration ${name}`,
          error,
        );
      }
    },
  };
}

/** The Secret to write: labelled as the certificates' Secrets are, replacing `previous` when there is one. Pure. */
function secretBody(
  namespace: string,
  name: string,
  secret: Parameters<CertificateStore['writeSecret']>[1],
  previous: StoredSecret | undefined,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { ...CERTIFICATE_SECRET_LABELS },
      ...(previous ? { resourceVersion: previous.resourceVersion } : {}),
    },
    type: secret.type,
    data: encode(secret.data),
  };
}

/**
 * A JSON Patch that applies only to the configuration as read (its resourceVersion, and each
 * webhook where it was): it sets the caBundles and nothing else. Pure.
 */
function caBundlePatch(caBundle: string, previous: StoredWebhookConfiguration): object[] {
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: previous.resourceVersion },
    ...previous.caBundles.flatMap((entry, index) => [
      { op: 'test', path: `/webhooks/${index}/name`, value: entry.webhook },
      { op: 'add', path: `/webhooks/${index}/clientConfig/caBundle`, value: caBundle },
    ]),
  ];
}
