import type { KubernetesObject } from '@kubernetes/client-node';

/** client-go's MetaNamespaceKey: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(obj: KubernetesObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Inverse of objectKey. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const i = key.indexOf('/');
  return i < 0
    ? { namespace: undefined, name: key }
    : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
