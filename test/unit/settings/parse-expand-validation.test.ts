import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDriverMap, parseExpandValidation, SettingInvalidError } from '../../../src/settings/index.js';
import { harvesterSetting } from '../../support/admission-objects.js';

describe('parseExpandValidation (default, then value overlays it)', () => {
  const table: Array<[string, string | undefined, string | undefined, Record<string, boolean>]> = [
    ['Harvester default only', '{"driver.longhorn.io":true}', '', { 'driver.longhorn.io': true }],
    ['seed example: value adds drivers', '{"driver.longhorn.io":true}', '{"topolvm.io":true,"hostpath.csi.k8s.io":true}',
      { 'driver.longhorn.io': true, 'topolvm.io': true, 'hostpath.csi.k8s.io': true }],
    ['value overrides a default key', '{"driver.longhorn.io":true}', '{"driver.longhorn.io":false}', { 'driver.longhorn.io': false }],
    ['false entries are kept as false', '', '{"nfs.csi.k8s.io":false}', { 'nfs.csi.k8s.io': false }],
    ['both empty', '', '', {}],
    ['both missing', undefined, undefined, {}],
    ['empty object', '{}', '{}', {}],
    ['whitespace around JSON', ' {"a.example":true} ', '', { 'a.example': true }],
  ];
  for (const [name, defaultText, value, expected] of table) {
    it(name, () => {
      const setting = { metadata: { name: 'csi-online-expand-validation' }, default: defaultText, value } as Parameters<typeof parseExpandValidation>[0];
      const parsed = parseExpandValidation(setting);
      assert.deepEqual(Object.fromEntries(parsed.drivers), expected);
      for (const [driver, allowed] of Object.entries(expected)) assert.equal(parsed.allows(driver), allowed);
    });
  }

  it('a missing key is false', () => {
    const parsed = parseExpandValidation(harvesterSetting('{"nfs.csi.k8s.io":true}'));
    assert.equal(parsed.allows('topolvm.io'), false);
    assert.equal(parsed.allows('driver.longhorn.io'), true);
  });

  const invalid: Array<[string, string, string, string]> = [
    ['value is not JSON', '{"nfs.csi.k8s.io":true', 'SETTING_INVALID_JSON', 'value'],
    ['value is a JSON array', '["nfs.csi.k8s.io"]', 'SETTING_INVALID_JSON', 'value'],
    ['value is JSON null', 'null', 'SETTING_INVALID_JSON', 'value'],
    ['value is a JSON string', '"nfs.csi.k8s.io"', 'SETTING_INVALID_JSON', 'value'],
    ['value maps to a string', '{"nfs.csi.k8s.io":"true"}', 'SETTING_INVALID_VALUE', 'value'],
    ['value maps to a number', '{"nfs.csi.k8s.io":1}', 'SETTING_INVALID_VALUE', 'value'],
    ['value maps to null', '{"nfs.csi.k8s.io":null}', 'SETTING_INVALID_VALUE', 'value'],
  ];
  for (const [name, value, code, field] of invalid) {
    it(`${name} -> ${code}`, () => {
      assert.throws(() => parseExpandValidation(harvesterSetting(value)), (error: unknown) => {
        assert.ok(error instanceof SettingInvalidError);
        assert.equal(error.code, code);
        assert.equal(error.details['field'], field);
        assert.ok(error.message.includes('csi-online-expand-validation'));
        return true;
      });
    });
  }

  it('an invalid default is an error too', () => {
    assert.throws(() => parseExpandValidation(harvesterSetting('', '{bad')), { code: 'SETTING_INVALID_JSON' });
  });

  it('a field that is not a string (an object where JSON text belongs) is SETTING_INVALID_JSON', () => {
    assert.throws(() => parseDriverMap(['{}'] as unknown as string, 'value', 's'), (error: unknown) =>
      error instanceof SettingInvalidError && error.code === 'SETTING_INVALID_JSON' && /must be a string holding a JSON object/.test(error.message));
  });

  it('a huge key or entry is quoted in at most 80 characters', () => {
    const key = 'k'.repeat(100_000);
    assert.throws(() => parseDriverMap(JSON.stringify({ [key]: 'x'.repeat(100_000) }), 'value', 's'), (error: unknown) => {
      assert.ok(error instanceof SettingInvalidError && error.code === 'SETTING_INVALID_VALUE');
      assert.ok(error.message.length < 400, `message of ${error.message.length} characters`);
      assert.match(error.message, /maps "k{78}… to "x{78}…; each CSI driver must map to true or false\./);
      return true;
    });
  });

  it('parseDriverMap names the key of a non-boolean entry', () => {
    assert.throws(() => parseDriverMap('{"a":true,"b":"yes"}', 'value', 's'), (error: unknown) =>
      error instanceof SettingInvalidError && error.details['key'] === 'b' && error.message.includes('"b"'));
  });
});
