import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import {
  parseDriverMap,
  parseExpandValidation,
  SettingInvalidError,
} from '../../../src/settings/index.js';
import { harvesterSetting } from '../../support/webhook/admission-objects.js';

describe('parseExpandValidation (default, then value overlays it)', () => {
  const table: Array<[string, string | undefined, string | undefined, Record<string, boolean>]> = [
    ['Harvester default only', '{"driver.longhorn.io":true}', '', { 'driver.longhorn.io': true }],
    [
      'seed example: value adds drivers',
      '{"driver.longhorn.io":true}',
      '{"topolvm.io":true,"hostpath.csi.k8s.io":true}',
      { 'driver.longhorn.io': true, 'topolvm.io': true, 'hostpath.csi.k8s.io': true },
    ],
    [
      'value overrides a default key',
      '{"driver.longhorn.io":true}',
      '{"driver.longhorn.io":false}',
      { 'driver.longhorn.io': false },
    ],
    [
      'false entries are kept as false',
      '',
      '{"nfs.csi.k8s.io":false}',
      { 'nfs.csi.k8s.io': false },
    ],
    ['both empty', '', '', {}],
    ['both missing', undefined, undefined, {}],
    ['empty object', '{}', '{}', {}],
    ['whitespace around JSON', ' {"a.example":true} ', '', { 'a.example': true }],
    // JSON null, as Go's json.Unmarshal reads it into Harvester's map[string]bool (go run, Go 1.26):
    [
      'value null empties the map, default entries included',
      '{"driver.longhorn.io":true}',
      'null',
      {},
    ],
    ['value null with whitespace empties the map', '{"a.example":true}', ' null ', {}],
    [
      'value entry null is false and overrides default true',
      '{"a.example":true}',
      '{"a.example":null}',
      { 'a.example': false },
    ],
    [
      'value entry null is false, other keys are kept',
      '',
      '{"nfs.csi.k8s.io":null,"x.example":true}',
      { 'nfs.csi.k8s.io': false, 'x.example': true },
    ],
    [
      'a later duplicate null entry wins',
      '{"a.example":true}',
      '{"a.example":true,"a.example":null}',
      { 'a.example': false },
    ],
    [
      'default null, then value fills the emptied map',
      'null',
      '{"b.example":true}',
      { 'b.example': true },
    ],
    ['default null and no value', 'null', '', {}],
    ['default null and value null', 'null', 'null', {}],
    [
      'default entry null is false',
      '{"driver.longhorn.io":null}',
      '',
      { 'driver.longhorn.io': false },
    ],
    ['value {} keeps default entries', '{"a.example":true}', '{}', { 'a.example': true }],
  ];
  for (const [name, defaultText, value, expected] of table) {
    it(name, () => {
      const setting = {
        metadata: { name: 'csi-online-expand-validation' },
        default: defaultText,
        value,
      } as Parameters<typeof parseExpandValidation>[0];
      const parsed = parseExpandValidation(setting);
      assert.deepStrictEqual(Object.fromEntries(parsed.drivers), expected);
      for (const [driver, allowed] of Object.entries(expected))
        assert.strictEqual(parsed.allows(driver), allowed);
    });
  }

  it('a missing key is false', () => {
    const parsed = parseExpandValidation(harvesterSetting('{"nfs.csi.k8s.io":true}'));
    assert.isFalse(parsed.allows('topolvm.io'));
    assert.isTrue(parsed.allows('driver.longhorn.io'));
  });

  const invalid: Array<[string, string, string, string]> = [
    ['value is not JSON', '{"nfs.csi.k8s.io":true', 'SETTING_INVALID_JSON', 'value'],
    ['value is a JSON array', '["nfs.csi.k8s.io"]', 'SETTING_INVALID_JSON', 'value'],
    ['value is a JSON string', '"nfs.csi.k8s.io"', 'SETTING_INVALID_JSON', 'value'],
    ['value maps to a string', '{"nfs.csi.k8s.io":"true"}', 'SETTING_INVALID_VALUE', 'value'],
    ['value maps to a number', '{"nfs.csi.k8s.io":1}', 'SETTING_INVALID_VALUE', 'value'],
    ['value maps to an object', '{"nfs.csi.k8s.io":{}}', 'SETTING_INVALID_VALUE', 'value'],
    ['value is a JSON boolean', 'true', 'SETTING_INVALID_JSON', 'value'],
  ];
  for (const [name, value, code, field] of invalid) {
    it(`${name} -> ${code}`, () => {
      expectThrow(
        () => parseExpandValidation(harvesterSetting(value)),
        (error: unknown) => {
          assert.ok(error instanceof SettingInvalidError);
          assert.strictEqual(error.code, code);
          assert.strictEqual(error.details['field'], field);
          assert.ok(error.message.includes('csi-online-expand-validation'));
          return true;
        },
      );
    });
  }

  it('a null entry does not hide an invalid entry after it', () => {
    expectThrow(
      () => parseExpandValidation(harvesterSetting('{"a.example":null,"b.example":"yes"}')),
      (error: unknown) =>
        error instanceof SettingInvalidError &&
        error.code === 'SETTING_INVALID_VALUE' &&
        error.details['key'] === 'b.example',
    );
  });

  it('an invalid default is an error too', () => {
    expectThrow(() => parseExpandValidation(harvesterSetting('', '{bad')), {
      code: 'SETTING_INVALID_JSON',
    });
  });

  it('a field that is not a string (an object where JSON text belongs) is SETTING_INVALID_JSON', () => {
    expectThrow(
      () => parseDriverMap(['{}'] as unknown as string, 'value', 's'),
      (error: unknown) =>
        error instanceof SettingInvalidError &&
        error.code === 'SETTING_INVALID_JSON' &&
        /must be a string holding a JSON object/.test(error.message),
    );
  });

  it('a huge key or entry is quoted in at most 80 characters', () => {
    const key = 'k'.repeat(100_000);
    expectThrow(
      () => parseDriverMap(JSON.stringify({ [key]: 'x'.repeat(100_000) }), 'value', 's'),
      (error: unknown) => {
        assert.ok(error instanceof SettingInvalidError && error.code === 'SETTING_INVALID_VALUE');
        assert.ok(error.message.length < 400, `message of ${error.message.length} characters`);
        assert.match(
          error.message,
          /maps "k{78}… to "x{78}…; each CSI driver must map to true or false\./,
        );
        return true;
      },
    );
  });

  it('parseDriverMap names the key of a non-boolean entry', () => {
    expectThrow(
      () => parseDriverMap('{"a":true,"b":"yes"}', 'value', 's'),
      (error: unknown) =>
        error instanceof SettingInvalidError &&
        error.details['key'] === 'b' &&
        error.message.includes('"b"'),
    );
  });
});

describe("parseDriverMap (the Setting validator's rule for writes) refuses JSON null", () => {
  // Harvester would read these (see parseExpandValidation above); on write they are refused.
  const table: Array<[string, string, string, string | undefined]> = [
    ['value is JSON null', 'null', 'SETTING_INVALID_JSON', undefined],
    ['value is JSON null with whitespace', ' null ', 'SETTING_INVALID_JSON', undefined],
    ['value maps to null', '{"nfs.csi.k8s.io":null}', 'SETTING_INVALID_VALUE', 'nfs.csi.k8s.io'],
    [
      'a null entry after valid ones',
      '{"a.example":true,"b.example":null}',
      'SETTING_INVALID_VALUE',
      'b.example',
    ],
  ];
  for (const [name, text, code, key] of table) {
    it(`${name} -> ${code}`, () => {
      expectThrow(
        () => parseDriverMap(text, 'value', 'csi-online-expand-validation'),
        (error: unknown) => {
          assert.ok(error instanceof SettingInvalidError);
          assert.strictEqual(error.code, code);
          assert.strictEqual(error.details['field'], 'value');
          assert.strictEqual(error.details['key'], key);
          return true;
        },
      );
    });
  }
});
