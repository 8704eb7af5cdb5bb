import type { KubeClientConfig } from './kube-client-config.js';
import { isNotFound } from './api-error.js';
import { requestJson } from './kube-request.js';
import type { ResourceRef } from './resource-ref.js';

/**
 * The plurals discovery (`/apis/<group>/<version>`, or `/api/<version>` for the core group) lists
 * for the group/version: empty when the group/version is answered 404 (not served). Rejects when
 * discovery cannot be read. Discovery is readable by every authenticated user (the
 * `system:discovery` ClusterRole), so it tells whether a resource is served to an identity that
 * may not list it.
 */
export async function servedResources(
  kubeConfig: KubeClientConfig,
  groupVersion: Pick<ResourceRef, 'group' | 'version'>,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const path =
    groupVersion.group === ''
      ? `/api/${groupVersion.version}`
      : `/apis/${groupVersion.group}/${groupVersion.version}`;
  try {
    const list = await requestJson<{ resources?: Array<{ name?: string }> }>(kubeConfig, {
      method: 'GET',
      path,
      timeoutMs: 30_000,
      ...(signal ? { signal } : {}),
    });
    return new Set((list.resources ?? []).map((r) => r.name ?? ''));
  } catch (error) {
    if (isNotFound(error)) return new Set();
    throw error;
  }
}

/**
 * Whether discovery lists the resource's plural: true or false; a group/version answered 404 is
 * false. Rejects when discovery cannot be read. For telling a resource the cluster does not serve
 * from a spurious 404 (API servers and proxies answer those too, kubernetes#115241).
 */
export async function isResourceServed(
  kubeConfig: KubeClientConfig,
  resource: Pick<ResourceRef, 'group' | 'version' | 'plural'>,
  signal?: AbortSignal,
): Promise<boolean> {
  return (await servedResources(kubeConfig, resource, signal)).has(resource.plural);
}
