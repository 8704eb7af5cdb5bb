/** Which resource (core when group is '' or 'core'), optionally one object of it. */
export interface ResourceRef {
  group: string;
  version: string;
  plural: string;
  /** Omit for cluster-scoped resources or to list across all namespaces. */
  namespace?: string;
  name?: string;
}

/**
 * REST path of a resource or object: `/api/v1/namespaces/ns/persistentvolumeclaims/x`,
 * `/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm/status`.
 */
export function resourcePath(ref: ResourceRef, subresource?: string): string {
  const core = ref.group === '' || ref.group === 'core';
  const enc = encodeURIComponent;
  let p = core ? `/api/${enc(ref.version)}` : `/apis/${enc(ref.group)}/${enc(ref.version)}`;
  if (ref.namespace) p += `/namespaces/${enc(ref.namespace)}`;
  p += `/${enc(ref.plural)}`;
  if (ref.name !== undefined) p += `/${enc(ref.name)}`;
  if (subresource) p += `/${enc(subresource)}`;
  return p;
}
