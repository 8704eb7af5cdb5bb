import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachine } from '../../../src/model/index.js';
import { isVmRunning, pvcKeysOfVm, volumeClaimTemplatesOf } from '../../../src/model/vm-claims.js';
import { templateEntry, vm } from '../../support/webhook/admission-objects.js';

describe('pvcKeysOfVm', () => {
  it('template persistentVolumeClaim, dataVolume and volumeClaimTemplates, in the VM namespace', () => {
    const machine = vm('vm1', {
      namespace: 'team-a',
      volumes: [
        { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0-kq8zt' } },
        { name: 'disk-1', dataVolume: { name: 'vm1-dv' } },
        { name: 'cloudinitdisk', cloudInitNoCloud: { userData: '#cloud-config' } },
      ],
      templates: [
        templateEntry('vm1-disk-0-kq8zt', '10Gi'),
        templateEntry('vm1-disk-2-pending', '5Gi'),
      ],
    });
    assert.deepStrictEqual(pvcKeysOfVm(machine).sort(), [
      'team-a/vm1-disk-0-kq8zt',
      'team-a/vm1-disk-2-pending',
      'team-a/vm1-dv',
    ]);
  });

  it('a malformed volumeClaimTemplates annotation lists nothing', () => {
    const machine = vm('vm1', { volumes: [], templates: [] });
    machine.metadata!.annotations!['harvesterhci.io/volumeClaimTemplates'] = '[{"metadata":';
    assert.deepStrictEqual(volumeClaimTemplatesOf(machine), []);
    machine.metadata!.annotations!['harvesterhci.io/volumeClaimTemplates'] = '{"metadata":{}}';
    assert.deepStrictEqual(volumeClaimTemplatesOf(machine), []);
    assert.deepStrictEqual(pvcKeysOfVm(machine), []);
  });

  it('a VM without volumes or annotations uses nothing', () => {
    assert.deepStrictEqual(pvcKeysOfVm({ metadata: { name: 'bare', namespace: 'default' } }), []);
  });
});

describe('isVmRunning (Harvester: printableStatus != "Stopped")', () => {
  const table: Array<[string, VirtualMachine['status'], boolean]> = [
    ['Stopped', { printableStatus: 'Stopped' }, false],
    ['Running', { printableStatus: 'Running' }, true],
    ['Starting', { printableStatus: 'Starting' }, true],
    ['Paused', { printableStatus: 'Paused' }, true],
    ['Migrating', { printableStatus: 'Migrating' }, true],
    ['Stopping', { printableStatus: 'Stopping' }, true],
    ['CrashLoopBackOff', { printableStatus: 'CrashLoopBackOff' }, true],
    ['no printableStatus', {}, true],
    ['no status', undefined, true],
  ];
  for (const [name, status, running] of table) {
    it(name, () =>
      assert.strictEqual(
        isVmRunning({ metadata: { name: 'v' }, ...(status ? { status } : {}) }),
        running,
      ),
    );
  }
});
