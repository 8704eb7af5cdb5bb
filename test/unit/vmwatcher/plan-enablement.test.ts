import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  ADDED_GATES_ANNOTATION,
  CREATED_BY_ANNOTATION,
  defaultExpandSetting,
  planGate,
  planGateRemoval,
  planSettingRemoval,
  withGateAdded,
  withGateRemoved,
} from '../../../src/vmwatcher/plan-enablement.js';
import { harvesterSetting, kubeVirt } from '../../support/webhook/admission-objects.js';

const WITHOUT = ['LiveMigration', 'HotplugVolumes'];

describe('planning voe enable and voe disable', () => {
  it('adds ExpandDisks only where it is missing, not disabled, and not GA', () => {
    assert.deepStrictEqual(planGate(kubeVirt({ gates: WITHOUT })), { action: 'add' });
    assert.deepStrictEqual(planGate(kubeVirt({ gates: WITHOUT, version: 'v1.9.0' })), {
      action: 'ga',
      version: 'v1.9.0',
    });
    assert.deepStrictEqual(planGate(kubeVirt({ gates: WITHOUT, version: 'v1.9.0-rc.1' })), {
      action: 'add',
    });
    assert.deepStrictEqual(planGate(kubeVirt({ gates: WITHOUT, disabled: ['ExpandDisks'] })), {
      action: 'disabled-by-user',
    });
    assert.deepStrictEqual(planGate(kubeVirt()), { action: 'listed' });
    // Listed wins over disabledFeatureGates in KubeVirt: the gate is on, nothing to add.
    assert.deepStrictEqual(planGate(kubeVirt({ disabled: ['ExpandDisks'] })), {
      action: 'listed',
    });
    assert.deepStrictEqual(planGate(withGateAdded(kubeVirt({ gates: WITHOUT }))), {
      action: 'already-added',
    });
  });

  it('records what it added, and removes only that', () => {
    const original = kubeVirt({ gates: WITHOUT });
    const enabled = withGateAdded(original);
    assert.deepStrictEqual(enabled.spec?.configuration?.developerConfiguration?.featureGates, [
      ...WITHOUT,
      'ExpandDisks',
    ]);
    assert.strictEqual(enabled.metadata?.annotations?.[ADDED_GATES_ANNOTATION], 'ExpandDisks');
    assert.isUndefined(original.metadata?.annotations, 'the object given is not changed');
    assert.deepStrictEqual(planGateRemoval(enabled), { action: 'remove', listed: true });
    const disabled = withGateRemoved(enabled);
    assert.deepStrictEqual(
      disabled.spec?.configuration?.developerConfiguration?.featureGates,
      WITHOUT,
    );
    assert.isUndefined(disabled.metadata?.annotations?.[ADDED_GATES_ANNOTATION]);
    assert.deepStrictEqual(planGateRemoval(disabled), { action: 'not-ours' });
    assert.deepStrictEqual(planGateRemoval(kubeVirt()), { action: 'not-ours' });
  });

  it('adds featureGates to a KubeVirt CR without developerConfiguration', () => {
    const bare = kubeVirt();
    delete bare.spec!.configuration!.developerConfiguration;
    assert.deepStrictEqual(
      withGateAdded(bare).spec?.configuration?.developerConfiguration?.featureGates,
      ['ExpandDisks'],
    );
  });

  it('deletes only the Setting it created, and only while nobody set a value', () => {
    const created = defaultExpandSetting('csi-online-expand-validation');
    assert.strictEqual(created.default, '{"driver.longhorn.io":true}');
    assert.strictEqual(created.metadata?.annotations?.[CREATED_BY_ANNOTATION], 'voe enable');
    assert.deepStrictEqual(planSettingRemoval(created), { action: 'delete' });
    assert.deepStrictEqual(planSettingRemoval({ ...created, value: '{"nfs.csi.k8s.io":true}' }), {
      action: 'keep',
    });
    assert.deepStrictEqual(planSettingRemoval(harvesterSetting('')), { action: 'not-ours' });
    assert.deepStrictEqual(planSettingRemoval(undefined), { action: 'absent' });
  });
});
