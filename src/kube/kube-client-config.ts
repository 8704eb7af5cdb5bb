import type { RequestOptions } from 'node:https';
import type { Cluster, Context } from '@kubernetes/client-node';

/**
 * What voe's own requests and watches (requestJson, openWatch, pods/exec) need of a kubeconfig:
 * the server of its current context and the TLS options and credentials to apply to a request.
 * Both LeanKubeConfig (what loadKubeConfig returns) and client-node's KubeConfig (tests, the
 * dev control plane) have it.
 */
export interface KubeClientConfig {
  /** The cluster of the current context; null when the context names none. */
  getCurrentCluster(): Cluster | null;
  /** The context named `name` (its namespace, cluster and user); null when there is none. */
  getContextObject(name: string): Context | null;
  /** The name of the current context. */
  getCurrentContext(): string;
  /** Sets the CA, client certificate and key, server name, TLS check and credentials headers. */
  applyToHTTPSOptions(options: RequestOptions): Promise<void>;
}
