import { describe, it } from 'mocha';
import { assert } from 'chai';
import { chooseVmiDisk, vmiNotReady } from '../../../../src/guest-grow/index.js';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';

function vmi(
  status: VirtualMachineInstance['status'],
  disks = ['rootdisk', 'data'],
): VirtualMachineInstance {
  return {
    metadata: { namespace: 'lab', name: 'vm1' },
    spec: {
      domain: { devices: { disks: [...disks.map((name) => ({ name })), { name: 'cloudinit' }] } },
      volumes: [
        ...disks.map((name) => ({ name, persistentVolumeClaim: { claimName: `vm1-${name}` } })),
        { name: 'cloudinit', cloudInitNoCloud: {} },
      ],
    },
    status,
  };
}

const AGENT = { type: 'AgentConnected', status: 'True' };

describe('vmiNotReady', () => {
  const cases: Array<{ name: string; vmi: VirtualMachineInstance | undefined; said?: RegExp }> = [
    { name: 'no VMI', vmi: undefined, said: /no VirtualMachineInstance lab\/vm1/ },
    { name: 'Scheduling', vmi: vmi({ phase: 'Scheduling' }), said: /is Scheduling, not Running/ },
    {
      name: 'migrating',
      vmi: vmi({
        phase: 'Running',
        conditions: [AGENT],
        migrationState: { sourcePod: 'a', targetPod: 'b' },
      }),
      said: /is migrating/,
    },
    {
      name: 'paused',
      vmi: vmi({ phase: 'Running', conditions: [AGENT, { type: 'Paused', status: 'True' }] }),
      said: /is paused/,
    },
    { name: 'no agent', vmi: vmi({ phase: 'Running', conditions: [] }), said: /no AgentConnected/ },
    {
      name: 'running, a finished migration, agent connected',
      vmi: vmi({ phase: 'Running', conditions: [AGENT], migrationState: { completed: true } }),
    },
  ];
  for (const each of cases)
    it(`${each.name}: ${each.said ? 'GUESTRUN_VM_NOT_READY' : 'ready'}`, () => {
      const error = vmiNotReady(each.vmi, 'lab/vm1');
      if (!each.said) return assert.isUndefined(error);
      assert.strictEqual(error?.code, 'GUESTRUN_VM_NOT_READY');
      assert.match(error!.message, each.said);
      assert.include(error!.message, 'nothing was run');
    });
});

describe('chooseVmiDisk', () => {
  const status = {
    volumeStatus: [
      { name: 'rootdisk', target: 'vda' },
      { name: 'data', target: 'vdb' },
    ],
  };
  it('takes the named disk on a PVC with its target', () => {
    assert.deepStrictEqual(chooseVmiDisk(vmi(status), 'data'), {
      volumeName: 'data',
      claimName: 'vm1-data',
      target: 'vdb',
    });
  });
  it('takes the only disk on a PVC without a name (cloud-init is not one)', () => {
    assert.strictEqual(chooseVmiDisk(vmi(status, ['data']), undefined).target, 'vdb');
  });
  const refused: Array<{
    name: string;
    disk: string | undefined;
    of: VirtualMachineInstance;
    said: RegExp;
  }> = [
    {
      name: 'several disks, no name',
      disk: undefined,
      of: vmi(status),
      said: /several disks on PVCs \(rootdisk, data\)/,
    },
    { name: 'an unknown name', disk: 'nope', of: vmi(status), said: /no disk "nope" on a PVC/ },
    {
      name: 'a disk not on a PVC',
      disk: 'cloudinit',
      of: vmi(status),
      said: /no disk "cloudinit" on a PVC/,
    },
    { name: 'no target yet', disk: 'data', of: vmi({}), said: /gives disk data no target/ },
  ];
  for (const each of refused)
    it(`${each.name}: GUESTRUN_DISK_NOT_FOUND`, () => {
      assert.throws(() => chooseVmiDisk(each.of, each.disk), each.said);
    });
});
