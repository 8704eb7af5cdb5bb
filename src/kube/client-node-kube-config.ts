import { KubeConfig } from '@kubernetes/client-node';
import type { LeanKubeConfig } from './lean-kube-config.js';

/**
 * client-node's KubeConfig holding the same kubeconfig, for the one-shot commands that use its
 * generated API clients (voe check, voe crds apply, voe demo --kubeconfig). Importing this module
 * loads client-node's generated models: it is not exported from kube/index.ts, so the
 * long-running commands never load it.
 */
export function clientNodeKubeConfig(kubeConfig: LeanKubeConfig): KubeConfig {
  const converted = new KubeConfig();
  converted.loadFromOptions(kubeConfig.entries());
  return converted;
}
