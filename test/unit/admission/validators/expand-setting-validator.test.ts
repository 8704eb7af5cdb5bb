import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { CsiDriver } from '../../../../src/model/index.js';
import { createExpandSettingValidator } from '../../../../src/admission/validators/expand-setting-validator.js';
import type { AdmissionRequest } from '../../../../src/admission/validators/validator.js';
import { MemoryCache } from '../../../../src/host-cache/memory-cache.js';
import {
  admissionRequest,
  csiDriver,
  harvesterSetting,
  SETTING_KIND,
  SETTING_RESOURCE,
} from '../../../support/webhook/admission-objects.js';

function request(operation: 'CREATE' | 'UPDATE' | 'DELETE', object: unknown): AdmissionRequest {
  return admissionRequest({
    operation,
    resource: SETTING_RESOURCE,
    kind: SETTING_KIND,
    object,
    oldObject: operation === 'CREATE' ? null : harvesterSetting(''),
  });
}

function validator(
  drivers: CsiDriver[] = [
    csiDriver('driver.longhorn.io'),
    csiDriver('nfs.csi.k8s.io'),
    csiDriver('topolvm.io'),
  ],
  synced = true,
) {
  const cache = new MemoryCache(drivers, { synced });
  return createExpandSettingValidator({
    csiDrivers: {
      synced: () => cache.hasSynced,
      getCsiDriver: (name) => cache.get(undefined, name),
    },
    options: { settingName: 'csi-online-expand-validation' },
  });
}

describe('expand-setting validator', () => {
  interface Case {
    name: string;
    request: AdmissionRequest;
    allowed: boolean;
    decision: string;
    includes?: string;
    warnings?: number;
  }
  const cases: Case[] = [
    {
      name: 'another Setting',
      request: request('UPDATE', harvesterSetting('not json', '', 'server-version')),
      allowed: true,
      decision: 'not-expand-setting',
    },
    {
      name: 'DELETE',
      request: request('DELETE', null),
      allowed: true,
      decision: 'not-expand-setting',
    },
    {
      name: 'Harvester defaults',
      request: request('CREATE', harvesterSetting('')),
      allowed: true,
      decision: 'setting-valid',
    },
    {
      name: 'seed example value',
      request: request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":true, "topolvm.io":true}')),
      allowed: true,
      decision: 'setting-valid',
    },
    {
      name: "value empty, Harvester's default",
      request: request('UPDATE', harvesterSetting('')),
      allowed: true,
      decision: 'setting-valid',
    },
    // A driver missing from both fields is read as false: leaving Longhorn out disables it as `false` does.
    {
      name: 'both fields empty: Longhorn left out',
      request: request('UPDATE', harvesterSetting('', '')),
      allowed: false,
      decision: 'setting-longhorn-disabled',
      includes: 'out of both "default" and "value"',
    },
    {
      name: 'fields missing: Longhorn left out',
      request: request('UPDATE', { metadata: { name: 'csi-online-expand-validation' } }),
      allowed: false,
      decision: 'setting-longhorn-disabled',
      includes: 'counts as false',
    },
    {
      name: 'created with only value, without Longhorn',
      request: request('CREATE', {
        metadata: { name: 'csi-online-expand-validation' },
        value: '{"nfs.csi.k8s.io":true}',
      }),
      allowed: false,
      decision: 'setting-longhorn-disabled',
      includes: 'Add "driver.longhorn.io":true to "value"',
    },
    {
      name: 'created with only value, Longhorn in it',
      request: request('CREATE', {
        metadata: { name: 'csi-online-expand-validation' },
        value: '{"nfs.csi.k8s.io":true,"driver.longhorn.io":true}',
      }),
      allowed: true,
      decision: 'setting-valid',
    },
    {
      name: 'default emptied, Longhorn only in value',
      request: request('UPDATE', harvesterSetting('{"driver.longhorn.io":true}', '')),
      allowed: true,
      decision: 'setting-valid',
    },
    {
      name: 'a driver set to false',
      request: request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":false}')),
      allowed: true,
      decision: 'setting-valid',
    },
    {
      name: 'value not JSON',
      request: request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":true')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'SETTING_INVALID_JSON',
    },
    {
      name: 'value a list',
      request: request('UPDATE', harvesterSetting('["nfs.csi.k8s.io"]')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'SETTING_INVALID_JSON',
    },
    {
      name: 'value maps to a string',
      request: request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":"true"}')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'SETTING_INVALID_VALUE',
    },
    // The write rule is stricter than Harvester's reading (the resize path reads null as Go does).
    {
      name: 'value JSON null',
      request: request('UPDATE', harvesterSetting('null')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'SETTING_INVALID_JSON',
    },
    {
      name: 'value maps to null',
      request: request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":null}')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'SETTING_INVALID_VALUE',
    },
    {
      name: 'default JSON null',
      request: request('UPDATE', harvesterSetting('', 'null')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'field "default"',
    },
    {
      name: 'default not JSON',
      request: request('UPDATE', harvesterSetting('', '{')),
      allowed: false,
      decision: 'setting-invalid',
      includes: 'field "default"',
    },
    {
      name: 'Longhorn disabled in value',
      request: request('UPDATE', harvesterSetting('{"driver.longhorn.io":false}')),
      allowed: false,
      decision: 'setting-longhorn-disabled',
      includes: 'driver.longhorn.io',
    },
    {
      name: 'Longhorn disabled in default',
      request: request('UPDATE', harvesterSetting('', '{"driver.longhorn.io":false}')),
      allowed: false,
      decision: 'setting-longhorn-disabled',
      includes: 'field "default"',
    },
    {
      name: 'unknown driver: accepted with a warning',
      request: request(
        'UPDATE',
        harvesterSetting('{"nfs.csi.k8s.io":true,"cephfs.csi.ceph.com":true}'),
      ),
      allowed: true,
      decision: 'setting-valid',
      warnings: 1,
      includes: 'cephfs.csi.ceph.com',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const verdict = await validator().validate(c.request);
      assert.strictEqual(verdict.allowed, c.allowed, verdict.message);
      assert.strictEqual(verdict.decision, c.decision);
      if (!c.allowed) {
        assert.strictEqual(verdict.code, 422);
        assert.strictEqual(verdict.reason, 'Invalid');
        if (c.includes) assert.ok(verdict.message?.includes(c.includes), verdict.message);
      } else if (c.includes) {
        assert.ok(
          verdict.warnings?.some((text) => text.includes(c.includes!)),
          JSON.stringify(verdict.warnings),
        );
      }
      assert.strictEqual(verdict.warnings?.length ?? 0, c.warnings ?? 0);
    });
  }

  it('an UPDATE that leaves a field as it was is not refused for what that field already held (stored before voe); it is warned about', async () => {
    const update = (oldObject: unknown, object: unknown) =>
      admissionRequest({
        operation: 'UPDATE',
        resource: SETTING_RESOURCE,
        kind: SETTING_KIND,
        object,
        oldObject,
      });
    // The same Setting with a label added: both fields left as they were.
    const relabelled = (setting: object) => ({
      ...setting,
      metadata: { name: 'csi-online-expand-validation', labels: { a: 'b' } },
    });
    const disabled = harvesterSetting(
      '{"driver.longhorn.io":false}',
      '{"driver.longhorn.io":true}',
    );
    // Harvester's controller rewrites only `default`; a label is added.
    const kept = await validator().validate(
      update(
        disabled,
        relabelled(
          harvesterSetting(
            '{"driver.longhorn.io":false}',
            '{"driver.longhorn.io":true,"nfs.csi.k8s.io":false}',
          ),
        ),
      ),
    );
    assert.isTrue(kept.allowed, kept.message);
    assert.deepStrictEqual(kept.warnings, [
      'field "value" sets "driver.longhorn.io" to false and was left as it was; set it to true',
    ]);
    const broken = harvesterSetting('{"nfs.csi.k8s.io":', '{"driver.longhorn.io":true}');
    const keptBroken = await validator().validate(update(broken, relabelled(broken)));
    assert.isTrue(keptBroken.allowed, keptBroken.message);
    assert.deepStrictEqual(keptBroken.warnings, [
      'field "value" is not valid (SETTING_INVALID_JSON) and was left as it was; fix it',
    ]);
    // Any change to such a field is judged as written.
    const changed = await validator().validate(
      update(
        disabled,
        harvesterSetting(
          '{"driver.longhorn.io":false,"nfs.csi.k8s.io":true}',
          '{"driver.longhorn.io":true}',
        ),
      ),
    );
    assert.strictEqual(changed.decision, 'setting-longhorn-disabled');
    const created = await validator().validate(
      admissionRequest({
        operation: 'CREATE',
        resource: SETTING_RESOURCE,
        kind: SETTING_KIND,
        object: disabled,
        oldObject: null,
      }),
    );
    assert.strictEqual(created.decision, 'setting-longhorn-disabled');
    // Longhorn already left out of both fields (stored before voe): warned about while neither field changes, refused once one does.
    const without = harvesterSetting('{"nfs.csi.k8s.io":true}', '');
    const keptWithout = await validator().validate(update(without, relabelled(without)));
    assert.isTrue(keptWithout.allowed, keptWithout.message);
    assert.deepStrictEqual(keptWithout.warnings, [
      '"driver.longhorn.io" was already in neither field (read as false); add "driver.longhorn.io":true to "value"',
    ]);
    const stillWithout = await validator().validate(
      update(without, harvesterSetting('{"nfs.csi.k8s.io":true,"topolvm.io":true}', '')),
    );
    assert.strictEqual(stillWithout.decision, 'setting-longhorn-disabled');
    // A kept field that the write rule refuses but the resize path still reads (a null entry): taking
    // Longhorn out of the other field is judged on that reading, and refused.
    const nullDefault = harvesterSetting('{"driver.longhorn.io":true}', '{"nfs.csi.k8s.io":null}');
    const longhornDropped = await validator().validate(
      update(nullDefault, harvesterSetting('{"topolvm.io":true}', '{"nfs.csi.k8s.io":null}')),
    );
    assert.strictEqual(
      longhornDropped.decision,
      'setting-longhorn-disabled',
      longhornDropped.message,
    );
    // A kept field the resize path cannot read at all: it refuses every resize it governs; Longhorn's entry changes nothing.
    const brokenDefault = harvesterSetting('{"driver.longhorn.io":true}', '{"nfs.csi.k8s.io":');
    const besideBroken = await validator().validate(
      update(brokenDefault, harvesterSetting('{"topolvm.io":true}', '{"nfs.csi.k8s.io":')),
    );
    assert.isTrue(besideBroken.allowed, besideBroken.message);
    assert.deepStrictEqual(besideBroken.warnings, [
      'field "default" is not valid (SETTING_INVALID_JSON) and was left as it was; fix it',
    ]);
  });

  it('warnings stay within 120 characters, at most six', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [
        `very-long-driver-name-${i}.${'x'.repeat(120)}.example.com`,
        true,
      ]),
    );
    const verdict = await validator([]).validate(
      request('UPDATE', harvesterSetting(JSON.stringify(many))),
    );
    assert.isTrue(verdict.allowed);
    assert.strictEqual(verdict.warnings?.length, 6);
    for (const text of verdict.warnings ?? []) assert.ok(text.length <= 120, text);
  });

  it('warns once when the CSIDriver cache is not synced', async () => {
    const verdict = await validator([], false).validate(
      request('UPDATE', harvesterSetting('{"nfs.csi.k8s.io":true}')),
    );
    assert.isTrue(verdict.allowed);
    assert.deepStrictEqual(verdict.warnings, [
      'CSIDriver cache not synced yet; the driver names were not checked',
    ]);
  });

  it('has its name and path', () => {
    assert.strictEqual(validator().name, 'setting');
    assert.strictEqual(validator().path, '/validate/setting');
  });
});
