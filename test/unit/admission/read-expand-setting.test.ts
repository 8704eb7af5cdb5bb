import { it } from 'mocha';
import { assert } from 'chai';
import { readExpandSetting } from '../../../src/admission/assemble-resize-snapshot.js';
import type { HarvesterSetting } from '../../../src/settings/index.js';

const setting = (value: string): HarvesterSetting => ({
  apiVersion: 'harvesterhci.io/v1beta1',
  kind: 'Setting',
  metadata: { name: 'csi-online-expand-validation', resourceVersion: value.length.toString() },
  default: '{"driver.longhorn.io":true}',
  value,
});

it('the Setting is parsed once per object and again when the cache holds a new object', () => {
  let current = setting('');
  const source = { getSetting: () => current };
  const first = readExpandSetting(source, 'csi-online-expand-validation');
  assert.strictEqual(first.state, 'parsed');
  assert.strictEqual(
    readExpandSetting(source, 'csi-online-expand-validation'),
    first,
    'same object: same parsed state',
  );
  assert.isFalse(first.state === 'parsed' && first.validation.allows('nfs.csi.k8s.io'));

  current = setting('{"nfs.csi.k8s.io":true}');
  const second = readExpandSetting(source, 'csi-online-expand-validation');
  assert.isTrue(second.state === 'parsed' && second.validation.allows('nfs.csi.k8s.io'));

  current = setting('{not json');
  assert.strictEqual(readExpandSetting(source, 'csi-online-expand-validation').state, 'invalid');
});

it('JSON null in the Setting is read as Harvester reads it, not as an invalid Setting', () => {
  const read = (value: string) =>
    readExpandSetting({ getSetting: () => setting(value) }, 'csi-online-expand-validation');
  const emptied = read('null');
  assert.strictEqual(emptied.state, 'parsed');
  assert.isFalse(
    emptied.state === 'parsed' && emptied.validation.allows('driver.longhorn.io'),
    'null empties default entries too',
  );
  const entry = read('{"nfs.csi.k8s.io":null,"topolvm.io":true}');
  assert.strictEqual(entry.state, 'parsed');
  assert.isFalse(entry.state === 'parsed' && entry.validation.allows('nfs.csi.k8s.io'));
  assert.isTrue(entry.state === 'parsed' && entry.validation.allows('topolvm.io'));
  assert.isTrue(entry.state === 'parsed' && entry.validation.allows('driver.longhorn.io'));
});
