import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutManagedFields } from '../../../src/webhook/index.js';

const managedFields = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:volumeName': {} } },
  },
];

test('drops metadata.managedFields and keeps everything else, without changing the object given', () => {
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
  assert.deepEqual(lean, {
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
  assert.equal('managedFields' in lean.metadata, false);
  assert.deepEqual(pvc, before);
  // Shallow: the parts kept are the same objects.
  assert.equal(lean.spec, pvc.spec);
  assert.equal(lean.metadata.annotations, pvc.metadata.annotations);
});

test('an object without managedFields (or without metadata) is given back as it is', () => {
  const noFields = { metadata: { name: 'x' } };
  assert.equal(withoutManagedFields(noFields), noFields);
  const noMetadata = { kind: 'Thing' };
  assert.equal(withoutManagedFields(noMetadata), noMetadata);
  const nullMetadata = { metadata: null };
  assert.equal(withoutManagedFields(nullMetadata), nullMetadata);
});

test('a managedFields of any value (null, not a list) is dropped too', () => {
  assert.deepEqual(withoutManagedFields({ metadata: { name: 'x', managedFields: null } }), {
    metadata: { name: 'x' },
  });
  assert.deepEqual(withoutManagedFields({ metadata: { name: 'x', managedFields: 'text' } }), {
    metadata: { name: 'x' },
  });
});
