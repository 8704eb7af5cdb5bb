/** The Kubernetes release the local control plane builds (pinned in go/go.mod: staging v0.33.13). */
export const KUBERNETES_VERSION = 'v1.33.13';
/** The etcd server module built beside it: the version k8s.io/apiserver v0.33 requires and upstream bundles with 1.33. */
export const ETCD_VERSION = 'v3.5.21';
