/**
 * Test-only additions to the staged objects of src/demo: AdmissionReview requests as the API
 * server sends them to a validating webhook.
 */
export * from '../../../src/demo/staged-objects.js';

/** An AdmissionReview request as the API server sends it to a validating webhook. */
export function admissionRequest(options: {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  resource: { group: string; version: string; resource: string };
  kind: { group: string; version: string; kind: string };
  object?: unknown;
  oldObject?: unknown;
  name?: string;
  namespace?: string;
  subResource?: string;
}) {
  const request = {
    uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    kind: options.kind,
    resource: options.resource,
    requestKind: options.kind,
    operation: options.operation,
    userInfo: { username: 'admin', uid: 'u-1', groups: ['system:authenticated'] },
    object: (options.object ?? null) as Record<string, unknown> | null,
    oldObject: (options.oldObject ?? null) as Record<string, unknown> | null,
    dryRun: false,
    ...(options.name ? { name: options.name } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    ...(options.subResource ? { subResource: options.subResource } : {}),
  };
  return request;
}

export const PVC_RESOURCE = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const PVC_KIND = { group: '', version: 'v1', kind: 'PersistentVolumeClaim' };
export const VM_RESOURCE = { group: 'kubevirt.io', version: 'v1', resource: 'virtualmachines' };
export const VM_KIND = { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachine' };
export const SETTING_RESOURCE = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  resource: 'settings',
};
export const SETTING_KIND = { group: 'harvesterhci.io', version: 'v1beta1', kind: 'Setting' };
