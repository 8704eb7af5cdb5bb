import type { KubeConfig } from '@kubernetes/client-node';

/** A running local kube-apiserver + etcd (see docs/control-plane.md). */
export interface ControlPlane {
  /** Working directory: certificates, etcd data, logs, kubeconfigs. */
  readonly dir: string;
  /** Admin kubeconfig file (user in system:masters). */
  readonly kubeconfigPath: string;
  /** Admin KubeConfig, already loaded. */
  readonly kubeConfig: KubeConfig;
  readonly apiServerUrl: string;
  readonly etcdUrl: string;
  /** A kubeconfig for any user and groups (client certificate signed by the client CA), for RBAC tests. */
  mintKubeConfig(
    user: string,
    groups?: string[],
  ): Promise<{ kubeConfig: KubeConfig; path: string }>;
  /** Stops only kube-apiserver; etcd keeps the data. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and etcd. */
  startApiServer(): Promise<void>;
  /** Stops everything this control plane started; safe to call twice. */
  stop(): Promise<void>;
}
