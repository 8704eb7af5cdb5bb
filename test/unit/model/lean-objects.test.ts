import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachineInstance } from '../../../src/model/index.js';
import { leanTrackedVmi } from '../../../src/model/lean-objects.js';
import { vmi } from '../../support/webhook/admission-objects.js';
import { instance } from '../../support/vmwatcher/expansion-fixtures.js';

describe('the lean VMI the tracker caches', () => {
  it("keeps what the guest probe reads: the disks' name, serial and bus, and AgentConnected alone", () => {
    const full = vmi('vm1', {
      volumes: [
        { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0' } },
        { name: 'data', persistentVolumeClaim: { claimName: 'vm1-data', hotpluggable: true } },
      ],
    }) as VirtualMachineInstance;
    const lean = leanTrackedVmi(full);
    assert.deepStrictEqual(lean.spec?.domain, {
      devices: {
        disks: [
          { name: 'disk-0', disk: { bus: 'virtio' } },
          { name: 'data', disk: { bus: 'scsi' }, serial: 'data' },
        ],
      },
    });
    assert.deepStrictEqual(lean.status?.conditions, [{ type: 'AgentConnected', status: 'True' }]);
    assert.notProperty(lean.spec?.domain ?? {}, 'cpu');
    assert.isBelow(JSON.stringify(lean).length, JSON.stringify(full).length / 2);
  });

  it('drops the conditions when none says AgentConnected', () => {
    const full = vmi('vm1') as VirtualMachineInstance;
    full.status!.conditions = [{ type: 'Ready', status: 'True' }];
    assert.isUndefined(leanTrackedVmi(full).status?.conditions);
    delete full.spec!.domain;
    assert.isUndefined(leanTrackedVmi(full).spec?.domain);
  });

  it('keeps the Paused condition beside AgentConnected (no growth while paused)', () => {
    const full = instance();
    full.status = {
      ...full.status,
      conditions: [
        { type: 'Ready', status: 'False', reason: 'PausedByUser' },
        { type: 'AgentConnected', status: 'True' },
        { type: 'Paused', status: 'True', reason: 'PausedByUser' },
      ],
    };
    assert.deepStrictEqual(leanTrackedVmi(full).status?.conditions, [
      { type: 'AgentConnected', status: 'True' },
      { type: 'Paused', status: 'True' },
    ]);
  });
});
