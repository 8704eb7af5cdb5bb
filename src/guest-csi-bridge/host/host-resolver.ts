import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { kubeConfigEntriesOf, LeanKubeConfig, type KubeClientConfig } from '../../kube/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { Secrets } from '../proto/csi-messages.js';
import type { HostApi } from './host-api.js';

/** The key of a CSI secret that carries a host kubeconfig (e.g. one per StorageClass). */
export const HOST_KUBECONFIG_SECRET_KEY = 'kubeconfig';

/** How many host kubeconfigs from secrets are kept ready (each with its HostApi). */
const CACHED = 16;

/** Chooses the host for a call: the one its secrets name, else the driver's own. */
export interface HostResolver {
  /** The driver's own host (from --kubeconfig). */
  readonly defaultHost: HostApi;
  /**
   * The host the secrets' `kubeconfig` names, else the default, its requests and watches ended
   * by `signal` (the call's) when given. Throws CSI_HOST_CREDENTIALS_INVALID for an unusable one.
   */
  forSecrets(secrets: Secrets | null | undefined, signal?: AbortSignal): HostApi;
}

/**
 * Kubeconfig fields that make the loader read a file of this node or run a program: from a
 * secret (written by whoever may write the StorageClass's Secret) they would let it run commands
 * on the node or send a node file as a token to a server of its choosing. Only inline
 * credentials are accepted.
 */
const USER_FIELDS_REFUSED = [
  'exec',
  'auth-provider',
  'token-file',
  'tokenFile',
  'client-certificate',
  'client-key',
];
const CLUSTER_FIELDS_REFUSED = ['certificate-authority'];

function refusedField(document: unknown): string | undefined {
  const config = (document ?? {}) as {
    users?: Array<{ user?: Record<string, unknown> }>;
    clusters?: Array<{ cluster?: Record<string, unknown> }>;
  };
  for (const entry of Array.isArray(config.users) ? config.users : []) {
    const found = USER_FIELDS_REFUSED.find((field) => entry?.user?.[field] !== undefined);
    if (found) return `users[].user.${found}`;
  }
  for (const entry of Array.isArray(config.clusters) ? config.clusters : []) {
    const found = CLUSTER_FIELDS_REFUSED.find((field) => entry?.cluster?.[field] !== undefined);
    if (found) return `clusters[].cluster.${found}`;
  }
  return undefined;
}

/**
 * A kubeconfig from a secret, loaded without ever quoting it: its parse errors would quote its
 * lines, keys and tokens included, and messages reach logs and the CO. Only inline credentials
 * (see USER_FIELDS_REFUSED).
 */
function loadSecretKubeConfig(text: string): LeanKubeConfig {
  const notAKubeconfig = (): CsiError =>
    new CsiError(
      'CSI_HOST_CREDENTIALS_INVALID',
      `the "${HOST_KUBECONFIG_SECRET_KEY}" secret is not a kubeconfig (not valid YAML or not a Config); fix the Secret the StorageClass names`,
    );
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    throw notAKubeconfig();
  }
  const refused = refusedField(document);
  if (refused !== undefined)
    throw new CsiError(
      'CSI_HOST_CREDENTIALS_INVALID',
      `the "${HOST_KUBECONFIG_SECRET_KEY}" secret's kubeconfig sets ${refused}: from a secret only inline credentials are accepted (token, client-certificate-data, client-key-data, certificate-authority-data)`,
    );
  let kubeConfig: LeanKubeConfig;
  try {
    kubeConfig = new LeanKubeConfig(kubeConfigEntriesOf(text));
  } catch {
    throw notAKubeconfig();
  }
  if (kubeConfig.getCurrentCluster() === null)
    throw new CsiError(
      'CSI_HOST_CREDENTIALS_INVALID',
      `the "${HOST_KUBECONFIG_SECRET_KEY}" secret is a kubeconfig without a current context and cluster; set current-context in the Secret the StorageClass names`,
    );
  return kubeConfig;
}

/**
 * A HostResolver over `defaultHost` that makes a HostApi (with `makeHost`) for each distinct
 * kubeconfig found in a call's secrets, keeping the last few by the SHA-256 of their text (the
 * text itself is not kept as a key).
 */
export function createHostResolver(
  defaultHost: HostApi,
  makeHost: (kubeConfig: KubeClientConfig) => HostApi,
): HostResolver {
  const cache = new Map<string, HostApi>();
  return {
    defaultHost,
    forSecrets(secrets, signal) {
      const host = hostOf(secrets);
      return signal && host.withSignal ? host.withSignal(signal) : host;
    },
  };

  function hostOf(secrets: Secrets | null | undefined): HostApi {
    const text = secrets?.[HOST_KUBECONFIG_SECRET_KEY];
    if (text === undefined || text === '') return defaultHost;
    const key = createHash('sha256').update(text, 'utf8').digest('hex');
    const known = cache.get(key);
    if (known) {
      cache.delete(key);
      cache.set(key, known);
      return known;
    }
    const host = makeHost(loadSecretKubeConfig(text));
    cache.set(key, host);
    if (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
    return host;
  }
}
