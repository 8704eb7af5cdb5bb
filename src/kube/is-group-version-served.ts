import { ApisApi, type KubeConfig } from '@kubernetes/client-node';

/** Whether the API server serves `group/version` (discovery), e.g. to skip informers for CRDs a cluster lacks. */
export async function isGroupVersionServed(kubeConfig: KubeConfig, group: string, version: string): Promise<boolean> {
  const groups = await kubeConfig.makeApiClient(ApisApi).getAPIVersions();
  return groups.groups.some((g) => g.name === group && g.versions.some((v) => v.version === version));
}
