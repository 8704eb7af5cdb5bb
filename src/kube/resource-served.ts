import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from './api-error.js';
import { requestJson } from './kube-request.js';
import type { ResourceRef } from './resource-ref.js';

/**
 * Whether discovery (`/apis/<group>/<version>`, or `/api/<version>` for the core group) lists the
 * resource's plural: true or false; a group/version answered 404 is false. Rejects when discovery
 * cannot be read. For telling a resource the cluster does not serve from a spurious 404 (API
 * servers and proxies answer those too, kubernetes#115241).
 */
export async function isResourceServed(kubeConfig: KubeConfig, resource: Pick<ResourceRef, 'group' | 'version' | 'plural'>, signal?: AbortSignal): Promise<boolean> {
  const path = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  try {
    const list = await requestJson<{ resources?: Array<{ name?: string }> }>(kubeConfig, {
      method: 'GET', path, timeoutMs: 30_000, ...(signal ? { signal } : {}),
    });
    return (list.resources ?? []).some((r) => r.name === resource.plural);
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
