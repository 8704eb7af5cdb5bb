import type { KubeClientConfig } from '../../kube/index.js';

/** The namespace of the kubeconfig's current context, else `default` (as Harvester's driver). */
export function hostNamespaceOf(kubeConfig: KubeClientConfig): string {
  return contextNamespaceOf(kubeConfig);
}

/** The namespace of the kubeconfig's current context, else `default`. */
export function contextNamespaceOf(kubeConfig: KubeClientConfig): string {
  const context = kubeConfig.getContextObject(kubeConfig.getCurrentContext());
  return context?.namespace || 'default';
}
