import {
  ApiException,
  CoreV1Api,
  VersionApi,
  type KubeConfig,
  type V1LimitRange,
  type V1ResourceQuota,
} from '@kubernetes/client-node';
import type { NamespacePolicies } from '../admission/index.js';
import { CheckError } from './check-error.js';
import { readOptional } from './read-optional.js';
import { listItems } from '../host-cache/index.js';

/** A list's items, or the HTTP status when the user may not list them (401, 403: their own RBAC, not an error). */
async function itemsOrForbidden<T>(
  what: string,
  list: () => Promise<{ items: T[] }>,
): Promise<T[] | number> {
  try {
    return listItems<T>(await readOptional(what, list));
  } catch (error) {
    const code =
      error instanceof CheckError && error.cause instanceof ApiException ? error.cause.code : 0;
    if (code !== 403 && code !== 401) throw error;
    return code;
  }
}

/**
 * One kind of policy for each namespace: its items, or the HTTP status of a refused list. Several
 * namespaces are read with one list across all namespaces; when that is refused, each namespace
 * with its own list (a user may be allowed in some namespaces only).
 */
async function policiesByNamespace<T extends { metadata?: { namespace?: string } }>(
  kind: string,
  namespaces: readonly string[],
  listIn: (namespace: string) => Promise<{ items: T[] }>,
  listAll: () => Promise<{ items: T[] }>,
): Promise<Map<string, T[] | number>> {
  if (namespaces.length > 1) {
    const all = await itemsOrForbidden(`${kind} in all namespaces`, listAll);
    if (typeof all !== 'number') {
      return new Map(
        namespaces.map((namespace) => [
          namespace,
          all.filter((item) => item.metadata?.namespace === namespace),
        ]),
      );
    }
  }
  return new Map(
    await Promise.all(
      namespaces.map(
        async (namespace) =>
          [
            namespace,
            await itemsOrForbidden(`${kind} in ${namespace}`, () => listIn(namespace)),
          ] as const,
      ),
    ),
  );
}

/** The API server's Kubernetes version (`/version`); unreadable (a proxy, RBAC on /version) is undefined, "taken as new". */
async function readServerVersion(
  kubeConfig: KubeConfig,
): Promise<NamespacePolicies['serverVersion']> {
  try {
    const info = await kubeConfig.makeApiClient(VersionApi).getCode();
    const major = Number.parseInt(info.major, 10);
    const minor = Number.parseInt(info.minor, 10);
    return Number.isFinite(major) && Number.isFinite(minor) ? { major, minor } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the API server applies to a PVC update besides the webhooks, for `voe check` (one
 * namespace) and the survey of `voe demo` (the namespaces of every PVC a VM uses): each
 * namespace's LimitRanges and ResourceQuotas, and the API server's version (the recovery rule).
 * One namespace is read with namespaced lists; several with one list across all namespaces per
 * kind, so a survey costs three calls whatever its size. A user who may not list them gets them
 * named in `unreadable` ("LimitRanges in default (HTTP 403)": not judged), not an error; any other
 * failure throws CHECK_API_FAILED. Changes nothing.
 */
export async function readNamespacePolicies(
  kubeConfig: KubeConfig,
  namespaces: readonly string[],
): Promise<Map<string, NamespacePolicies>> {
  const unique = [...new Set(namespaces)].sort();
  if (unique.length === 0) return new Map();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const [limitRanges, quotas, serverVersion] = await Promise.all([
    policiesByNamespace<V1LimitRange>(
      'LimitRanges',
      unique,
      (namespace) => core.listNamespacedLimitRange({ namespace }),
      () => core.listLimitRangeForAllNamespaces(),
    ),
    policiesByNamespace<V1ResourceQuota>(
      'ResourceQuotas',
      unique,
      (namespace) => core.listNamespacedResourceQuota({ namespace }),
      () => core.listResourceQuotaForAllNamespaces(),
    ),
    readServerVersion(kubeConfig),
  ]);
  return new Map(
    unique.map((namespace) => {
      const ranges = limitRanges.get(namespace) ?? [];
      const quota = quotas.get(namespace) ?? [];
      const unreadable = [
        ...(typeof ranges === 'number' ? [`LimitRanges in ${namespace} (HTTP ${ranges})`] : []),
        ...(typeof quota === 'number' ? [`ResourceQuotas in ${namespace} (HTTP ${quota})`] : []),
      ];
      const policies: NamespacePolicies = {
        limitRanges: typeof ranges === 'number' ? [] : ranges,
        quotas: typeof quota === 'number' ? [] : quota,
        unreadable,
        ...(serverVersion ? { serverVersion } : {}),
      };
      return [namespace, policies];
    }),
  );
}
