import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { Namespace, VirtualMachineInstance } from '../../../src/model/index.js';
import { GROW_GUEST_FILESYSTEM_ANNOTATION } from '../../../src/model/index.js';
import type { GuestGrowthTarget } from '../../../src/vmwatcher/guest-filesystem-grower.js';
import { guestGrowthNote } from '../../../src/vmwatcher/guest-growth-note.js';
import { TrackerGuestGrowth } from '../../../src/vmwatcher/tracker-guest-growth.js';
import { instance } from '../../support/vmwatcher/expansion-fixtures.js';
import { ScriptedGrower } from '../../support/vmwatcher/scripted-grower.js';
import { vm } from '../../support/webhook/admission-objects.js';

function target(vmi: VirtualMachineInstance, volumeName: string, guestDevice: string) {
  return { vmi, volumeName, target: undefined, claimName: volumeName, guestDevice };
}

function otherVm(name: string, uid: string): VirtualMachineInstance {
  const other = instance();
  other.metadata = { ...other.metadata, name, uid };
  return other;
}

describe("the tracker's side of guest filesystem growth", () => {
  const namespaces: Record<string, Namespace> = {
    vms: { metadata: { name: 'vms', annotations: { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' } } },
  };
  const growth = (grower: ScriptedGrower, enabled = true) =>
    new TrackerGuestGrowth({ grower, enabled, namespace: (name) => namespaces[name] });

  it("reads the Namespace's opt-in from the cache it is given", () => {
    const tracker = growth(new ScriptedGrower());
    assert.deepStrictEqual(tracker.optIn(vm('vm1'), 'vms', true), {
      grow: true,
      by: 'namespace',
    });
    assert.deepStrictEqual(tracker.optIn(vm('vm1'), 'default', true), {
      grow: false,
      why: 'not-asked',
    });
    assert.deepStrictEqual(growth(new ScriptedGrower(), false).optIn(vm('vm1'), 'vms', true), {
      grow: false,
      why: 'off',
    });
  });

  it('grows one disk of a VM at a time, while other VMs grow at once', async () => {
    const grower = new ScriptedGrower();
    const tracker = growth(grower);
    grower.hold();
    const vm1 = instance();
    const vm2 = otherVm('vm2', 'c7d8e9f0-0000-4000-8000-000000000002');
    const runs = [
      tracker.grow(target(vm1, 'disk-0', 'vda')),
      tracker.grow(target(vm1, 'data', 'vdb')),
      tracker.grow(target(vm2, 'disk-0', 'vda')),
    ];
    await new Promise((resolve) => setTimeout(resolve, 20));
    // vm1's second disk waits for its first; vm2's runs beside it.
    assert.strictEqual(grower.running, 2);
    assert.deepStrictEqual(
      grower.calls.map((call) => `${call.vm} ${call.guestDevice}`),
      ['default/vm1 vda', 'default/vm2 vda'],
    );
    grower.release();
    const outcomes = await Promise.all(runs);
    assert.deepStrictEqual(
      outcomes.map((outcome) => outcome.kind),
      ['nothing-to-do', 'nothing-to-do', 'nothing-to-do'],
    );
    assert.deepStrictEqual(
      grower.calls.map((call) => `${call.vm} ${call.guestDevice}`),
      ['default/vm1 vda', 'default/vm2 vda', 'default/vm1 vdb'],
    );
  });

  it('turns a grower that throws into an unreadable guest, for plan and grow, and goes on', async () => {
    const grower = new ScriptedGrower();
    grower.planAnswer = new Error('PROBE_TIMEOUT: guest-exec of lsblk did not exit within 20 s');
    grower.growAnswer = new Error('PROBE_VIRSH_FAILED: virt-launcher-vm1-x7k2p: exit 1');
    const tracker = growth(grower);
    const disk: GuestGrowthTarget = target(instance(), 'disk-0', 'vda');
    assert.deepStrictEqual(await tracker.plan(disk), {
      kind: 'unreadable',
      reason: 'PROBE_TIMEOUT: guest-exec of lsblk did not exit within 20 s',
    });
    assert.deepStrictEqual(await tracker.grow(disk), {
      kind: 'unreadable',
      reason: 'PROBE_VIRSH_FAILED: virt-launcher-vm1-x7k2p: exit 1',
    });
    grower.growAnswer = { kind: 'nothing-to-do' };
    assert.deepStrictEqual(await tracker.grow(disk), { kind: 'nothing-to-do' });
  });
});

describe("the VM's Event of a guest filesystem growth", () => {
  const table: Array<[string, Parameters<typeof guestGrowthNote>[1], string]> = [
    [
      'grown: the sizes and each command with its exit code and output',
      {
        result: 'Grown',
        mountPoint: '/data',
        beforeBytes: '10736349184',
        afterBytes: '21473767424',
        commands: [
          { command: 'growpart /dev/vdb 1', exitCode: 0, output: 'CHANGED: partition=1\n' },
          { command: 'resize2fs /dev/vdb1', exitCode: 0 },
        ],
      },
      'default/data: grew /data from 10736349184 to 21473767424 bytes. Ran `growpart /dev/vdb 1` (exit 0: CHANGED: partition=1); `resize2fs /dev/vdb1` (exit 0).',
    ],
    [
      'failed: the code, what ran, then the message',
      {
        result: 'Failed',
        code: 'GUESTGROW_COMMAND_FAILED',
        commands: [{ command: 'resize2fs /dev/vdb1', output: 'timed out' }],
      },
      "default/data: the guest's filesystem was not grown (GUESTGROW_COMMAND_FAILED). Ran `resize2fs /dev/vdb1` (did not exit: timed out). The message.",
    ],
    [
      'refused: the code and the message',
      { result: 'Refused', code: 'GUESTGROW_ENCRYPTED' },
      "default/data: the guest's filesystem was not grown (GUESTGROW_ENCRYPTED). The message.",
    ],
    [
      'nothing to do',
      { result: 'NothingToDo' },
      "default/data: the guest's filesystem already fills the disk; nothing ran.",
    ],
  ];
  for (const [name, filesystem, note] of table)
    it(name, () =>
      assert.strictEqual(guestGrowthNote('default/data', filesystem, 'The message.'), note),
    );
});
