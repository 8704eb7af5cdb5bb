import type { KubeClientConfig } from '../kube/index.js';
import { requestJson, resourcePath } from '../kube/index.js';
import { VOLUME_EXPANSIONS, type VolumeExpansion } from './volume-expansion.js';

/** Every VolumeExpansion of the namespace (all namespaces when undefined), read in pages of 500. */
export async function listExpansions(
  kubeConfig: KubeClientConfig,
  namespace: string | undefined,
): Promise<VolumeExpansion[]> {
  const path = resourcePath({ ...VOLUME_EXPANSIONS, ...(namespace ? { namespace } : {}) });
  const items: VolumeExpansion[] = [];
  let next: string | undefined;
  do {
    const page: { items?: VolumeExpansion[]; metadata?: { continue?: string } } = await requestJson(
      kubeConfig,
      { method: 'GET', path, query: { limit: 500, continue: next } },
    );
    items.push(...(page.items ?? []));
    next = page.metadata?.continue || undefined;
  } while (next);
  return items;
}
