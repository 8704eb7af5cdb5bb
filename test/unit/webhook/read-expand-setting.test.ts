import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readExpandSetting } from '../../../src/webhook/assemble-resize-snapshot.js';
import type { HarvesterSetting } from '../../../src/settings/index.js';

const setting = (value: string): HarvesterSetting => ({
  apiVersion: 'harvesterhci.io/v1beta1',
  kind: 'Setting',
  metadata: { name: 'csi-online-expand-validation', resourceVersion: value.length.toString() },
  default: '{"driver.longhorn.io":true}',
  value,
});

test('the Setting is parsed once per object and again when the cache holds a new object', () => {
  let current = setting('');
  const source = { getSetting: () => current };
  const first = readExpandSetting(source, 'csi-online-expand-validation');
  assert.equal(first.state, 'parsed');
  assert.equal(
    readExpandSetting(source, 'csi-online-expand-validation'),
    first,
    'same object: same parsed state',
  );
  assert.equal(first.state === 'parsed' && first.validation.allows('nfs.csi.k8s.io'), false);

  current = setting('{"nfs.csi.k8s.io":true}');
  const second = readExpandSetting(source, 'csi-online-expand-validation');
  assert.equal(second.state === 'parsed' && second.validation.allows('nfs.csi.k8s.io'), true);

  current = setting('{not json');
  assert.equal(readExpandSetting(source, 'csi-online-expand-validation').state, 'invalid');
});

test('JSON null in the Setting is read as Harvester reads it, not as an invalid Setting', () => {
  const read = (value: string) =>
    readExpandSetting({ getSetting: () => setting(value) }, 'csi-online-expand-validation');
  const emptied = read('null');
  assert.equal(emptied.state, 'parsed');
  assert.equal(
    emptied.state === 'parsed' && emptied.validation.allows('driver.longhorn.io'),
    false,
    'null empties default entries too',
  );
  const entry = read('{"nfs.csi.k8s.io":null,"topolvm.io":true}');
  assert.equal(entry.state, 'parsed');
  assert.equal(entry.state === 'parsed' && entry.validation.allows('nfs.csi.k8s.io'), false);
  assert.equal(entry.state === 'parsed' && entry.validation.allows('topolvm.io'), true);
  assert.equal(entry.state === 'parsed' && entry.validation.allows('driver.longhorn.io'), true);
});
