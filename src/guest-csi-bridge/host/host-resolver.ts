import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
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
  /** The host the secrets' `kubeconfig` names, else the default. Throws CSI_HOST_CREDENTIALS_INVALID for an unusable one. */
  forSecrets(secrets: Secrets | null | undefined): HostApi;
}

/**
 * A kubeconfig from a secret, loaded without ever quoting it: its parse errors would quote its
 * lines, keys and tokens included, and messages reach logs and the CO.
 */
function loadSecretKubeConfig(text: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(text);
  } catch {
    throw new CsiError(
      'CSI_HOST_CREDENTIALS_INVALID',
      `the "${HOST_KUBECONFIG_SECRET_KEY}" secret is not a kubeconfig (not valid YAML or not a Config); fix the Secret the StorageClass names`,
    );
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
  makeHost: (kubeConfig: KubeConfig) => HostApi,
): HostResolver {
  const cache = new Map<string, HostApi>();
  return {
    defaultHost,
    forSecrets(secrets) {
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
    },
  };
}
