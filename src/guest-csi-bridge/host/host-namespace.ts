import type { KubeConfig } from '@kubernetes/client-node';

/** The namespace of the kubeconfig's current context, else `default` (as Harvester's driver). */
export function hostNamespaceOf(kubeConfig: KubeConfig): string {
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  return context?.namespace || 'default';
}
