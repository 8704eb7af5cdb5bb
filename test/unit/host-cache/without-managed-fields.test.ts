import { it } from 'mocha';
import { assert } from 'chai';
import { withoutManagedFields } from '../../../src/host-cache/without-managed-fields.js';

const managedFields = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:volumeName': {} } },
  },
];

it('drops metadata.managedFields and keeps everything else, without changing the object given', () => {
  const pvc = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'disk-0',
      namespace: 'default',
      resourceVersion: '42',
      annotations: { a: 'b' },
      managedFields,
    },
    spec: { resources: { requests: { storage: '10Gi' } } },
  };
  const before = structuredClone(pvc);
  const lean = withoutManagedFields(pvc);
  assert.deepStrictEqual<unknown>(lean, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'disk-0',
      namespace: 'default',
      resourceVersion: '42',
      annotations: { a: 'b' },
    },
    spec: { resources: { requests: { storage: '10Gi' } } },
  });
  assert.isFalse('managedFields' in lean.metadata);
  assert.deepStrictEqual(pvc, before);
  // Shallow: the parts kept are the same objects.
  assert.strictEqual(lean.spec, pvc.spec);
  assert.strictEqual(lean.metadata.annotations, pvc.metadata.annotations);
});

it('an object without managedFields (or without metadata) is given back as it is', () => {
  const noFields = { metadata: { name: 'x' } };
  assert.strictEqual(withoutManagedFields(noFields), noFields);
  const noMetadata = { kind: 'Thing' };
  assert.strictEqual(withoutManagedFields(noMetadata), noMetadata);
  const nullMetadata = { metadata: null };
  assert.strictEqual(withoutManagedFields(nullMetadata), nullMetadata);
});

it('a managedFields of any value (null, not a list) is dropped too', () => {
  assert.deepStrictEqual<unknown>(
    withoutManagedFields({ metadata: { name: 'x', managedFields: null } }),
    {
      metadata: { name: 'x' },
    },
  );
  assert.deepStrictEqual<unknown>(
    withoutManagedFields({ metadata: { name: 'x', managedFields: 'text' } }),
    {
      metadata: { name: 'x' },
    },
  );
});
