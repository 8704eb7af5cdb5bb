/**
 * The tracker's guest filesystem growth on a real kube-apiserver, with a scripted guest probe and
 * a scripted grower (no guest runs here; the guest-agent runner is tested on its own): the
 * opt-in read from the VM and its Namespace as the informers cache them, GuestFilesystemGrowing
 * written (with its Event) before the growth ends, Completed with the filesystem's bytes before
 * and after, a refusal Completed at block level with GuestFilesystemNotGrown and a Warning on the
 * VM, and a VM not opted in Completed with the commands for its guest, nothing run. A Windows
 * VM whose disk the probe tied to \\.\PhysicalDrive1 is grown by the real agent grower
 * (agentFilesystemGrower) over a scripted guest agent answering as test/support/guest-grow's
 * Windows guest: Resize-Partition run, the drive's bytes proven by guest-get-fsinfo.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { requestJson } from '../../../src/kube/index.js';
import { GROW_GUEST_FILESYSTEM_ANNOTATION } from '../../../src/model/index.js';
import {
  Phase,
  StageReason,
  agentFilesystemGrower,
  type GuestFilesystemGrower,
  type GuestProbe,
} from '../../../src/vmwatcher/index.js';
import { onCleanup } from '../../support/cleanup.js';
import { eventuallyValue } from '../../support/eventually.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { ScriptedGrower } from '../../support/vmwatcher/scripted-grower.js';
import {
  E_OFFSET,
  RESIZE_E,
  WINDOWS_DISK,
  grownDriveBytes,
  windowsAgent,
} from '../../support/guest-grow/windows-guest.js';
import { TrackerLab } from '../../support/vmwatcher/tracker-lab.js';

const cp = await useControlPlane();
const lab = new TrackerLab(cp.kubeConfig);
const { actors, cluster } = lab;
await lab.stageCluster();

const GI = 1024n ** 3n;
/**
 * The guest's vdb at the hypervisor's 20 GiB: the guest sees the grown disk. The Windows VM win1's
 * disk is \\.\PhysicalDrive1 at that size (the probe's Windows view: Get-Disk's size).
 */
const probe: GuestProbe = {
  read: async (target) => ({
    hypervisorBytes: 20n * GI,
    guestBytes: 20n * GI,
    guestEvidence: 'BlockDevice',
    guestDevice: target.vmi.metadata?.name === 'win1' ? WINDOWS_DISK : 'vdb',
  }),
};

async function namespaceOptingIn(name: string): Promise<void> {
  await requestJson(cp.kubeConfig, {
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name, annotations: { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' } } },
  });
}

/** A tracker with growth on (the Namespaces cached), stopped after the test. */
async function tracker(grower: GuestFilesystemGrower, leaseName: string): Promise<void> {
  const running = await lab.startTracker({
    leaseName,
    probe,
    probeIntervalMs: 200,
    grower,
    guestFilesystemGrowth: true,
  });
  onCleanup(() => running.stop());
}

/** The VM's disk grown by every actor up to the hypervisor, which the probe shows grown. */
async function grownDisk(
  ns: string,
  vmName: string,
  claim: string,
  annotations?: Record<string, string>,
): Promise<void> {
  await lab.stageVm(ns, vmName, [{ claim }], annotations ? { annotations } : {});
  await cluster.resizeClaim(ns, claim, '20Gi');
  await actors.resizerStarts(ns, claim, '20Gi');
  await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
  await actors.resizerNeedsNode(ns, claim);
  await actors.kubeletStarts(ns, claim);
  await actors.kubeletFinishes(ns, claim);
  await actors.virtControllerSyncs(ns, vmName, claim);
}

async function eventReasons(ns: string, about: string): Promise<string[]> {
  return (await lab.events(ns, about)).map((event) => `${event.type}/${event.reason}`);
}

describe("the tracker's guest filesystem growth on a real kube-apiserver", () => {
  it('grows an opted-in VM: GuestFilesystemGrowing while it runs, then Completed with the bytes before and after', async () => {
    const ns = 'grow-vm';
    const claim = 'vm1-disk-0-grw01';
    const name = `${claim}-20gi`;
    const grower = new ScriptedGrower();
    grower.hold();
    grower.growAnswer = {
      kind: 'grown',
      mountPoint: '/data',
      beforeBytes: 10_736_349_184n,
      afterBytes: 21_473_767_424n,
      ran: [
        { command: 'growpart /dev/vdb 1', exitCode: 0, output: 'CHANGED: partition=1' },
        { command: 'resize2fs /dev/vdb1', exitCode: 0, output: 'now 5242619 (4k) blocks long' },
      ],
    };
    await tracker(grower, 'grow-vm');
    await grownDisk(ns, 'vm1', claim, { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' });
    const growing = await lab.waitForPhase(
      ns,
      name,
      Phase.GuestFilesystemGrowing,
      StageReason.GrowingGuestFilesystem,
    );
    assert.include(growing.status?.message, 'the VM opts in');
    // The status is written before the growth starts.
    await eventuallyValue(
      async () => grower.calls.map((call) => [call.kind, call.vm, call.guestDevice]),
      (calls) => calls.length > 0,
      'the growth started',
    ).then((calls) => assert.deepStrictEqual(calls, [['grow', `${ns}/vm1`, 'vdb']]));
    await eventuallyValue(
      () => eventReasons(ns, 'vm1'),
      (reasons) => reasons.includes('Normal/ExpansionGuestFilesystemGrowing'),
      'the Event of GuestFilesystemGrowing on the VM',
    );
    grower.release();
    const done = await lab.waitForPhase(
      ns,
      name,
      Phase.Completed,
      StageReason.GuestFilesystemGrown,
    );
    assert.include(done.status?.message, 'from 10736349184 to 21473767424 bytes');
    assert.deepStrictEqual(done.status?.guestFilesystem, {
      result: 'Grown',
      mountPoint: '/data',
      beforeBytes: '10736349184',
      afterBytes: '21473767424',
      commands: [
        { command: 'growpart /dev/vdb 1', exitCode: 0, output: 'CHANGED: partition=1' },
        { command: 'resize2fs /dev/vdb1', exitCode: 0, output: 'now 5242619 (4k) blocks long' },
      ],
    });
    const stamps = done.status?.phaseTimestamps ?? {};
    assert.isAtMost(
      Date.parse(stamps[Phase.GuestFilesystemGrowing] ?? ''),
      Date.parse(stamps[Phase.Completed] ?? ''),
    );
    const vmEvents = await eventuallyValue(
      () => eventReasons(ns, 'vm1'),
      (reasons) => reasons.includes('Normal/GuestFilesystemGrown'),
      'the Event of the growth on the VM',
    );
    assert.include(vmEvents, 'Normal/ExpansionCompleted');
    const note = (await lab.events(ns, 'vm1')).find((e) => e.reason === 'GuestFilesystemGrown');
    assert.include(note?.note, '`resize2fs /dev/vdb1` (exit 0: now 5242619 (4k) blocks long)');
    // Completed is final: the grower is not asked again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.strictEqual(grower.calls.length, 1);
  });

  it("ends a refused growth Completed at block level, GuestFilesystemNotGrown, with a Warning on the VM; a Namespace's opt-in counts", async () => {
    const ns = 'grow-ns';
    const claim = 'vm2-disk-0-grw02';
    const grower = new ScriptedGrower();
    grower.growAnswer = {
      kind: 'refused',
      code: 'GUESTGROW_NOT_LAST_PARTITION',
      reason: 'the filesystem on /dev/vdb1 is on partition 1, and partition 2 follows it',
      remedy: 'move or remove the partition after it, or use the new space as a new partition',
    };
    await namespaceOptingIn(ns);
    await tracker(grower, 'grow-ns');
    await grownDisk(ns, 'vm2', claim);
    const done = await lab.waitForPhase(
      ns,
      `${claim}-20gi`,
      Phase.Completed,
      StageReason.GuestFilesystemNotGrown,
    );
    assert.include(done.status?.message, 'is complete');
    assert.include(done.status?.message, 'partition 2 follows it (GUESTGROW_NOT_LAST_PARTITION)');
    assert.deepStrictEqual(done.status?.guestFilesystem, {
      result: 'Refused',
      code: 'GUESTGROW_NOT_LAST_PARTITION',
    });
    assert.isDefined(done.status?.phaseTimestamps?.[Phase.GuestFilesystemGrowing]);
    await eventuallyValue(
      () => eventReasons(ns, 'vm2'),
      (reasons) => reasons.includes('Warning/GuestFilesystemNotGrown'),
      'a Warning on the VM',
    );
    assert.deepStrictEqual(
      grower.calls.map((call) => call.kind),
      ['grow'],
    );
  });

  it('gives a VM that opts out (in a Namespace that opts in) the commands for its guest, and runs nothing', async () => {
    const ns = 'grow-opt-out';
    const claim = 'vm3-disk-0-grw03';
    const grower = new ScriptedGrower();
    grower.planAnswer = {
      kind: 'planned',
      commands: ['growpart /dev/vdb 1', 'resize2fs /dev/vdb1'],
    };
    await namespaceOptingIn(ns);
    await tracker(grower, 'grow-opt-out');
    await grownDisk(ns, 'vm3', claim, { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'false' });
    const done = await lab.waitForPhase(
      ns,
      `${claim}-20gi`,
      Phase.Completed,
      StageReason.GuestSeesNewSize,
    );
    assert.include(done.status?.message, 'run there growpart /dev/vdb 1 && resize2fs /dev/vdb1');
    assert.isUndefined(done.status?.phaseTimestamps?.[Phase.GuestFilesystemGrowing]);
    assert.strictEqual(done.status?.guestFilesystem?.result, 'Planned');
    assert.deepStrictEqual(
      grower.calls.map((call) => call.kind),
      ['plan'],
    );
  });

  it("grows an opted-in Windows VM's drive through the agent grower: Completed with guest-get-fsinfo's bytes", async () => {
    const ns = 'grow-windows';
    const claim = 'win1-disk-0-grw04';
    const name = `${claim}-20gi`;
    const G = 1024 ** 3;
    const before = { diskBytes: 20 * G, driveBytes: 10 * G - E_OFFSET };
    const after = { diskBytes: 20 * G, driveBytes: grownDriveBytes(20 * G) };
    const agent = windowsAgent([before, after]);
    const line = RESIZE_E[4]!;
    await tracker(
      agentFilesystemGrower(() => agent),
      'grow-windows',
    );
    await grownDisk(ns, 'win1', claim, { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' });
    const done = await lab.waitForPhase(
      ns,
      name,
      Phase.Completed,
      StageReason.GuestFilesystemGrown,
    );
    assert.deepStrictEqual(done.status?.guestFilesystem, {
      result: 'Grown',
      mountPoint: 'E:\\',
      beforeBytes: String(before.driveBytes),
      afterBytes: String(after.driveBytes),
      commands: [{ command: line, exitCode: 0, output: '' }],
    });
    assert.deepStrictEqual(agent.ran, [RESIZE_E]);
    const note = await eventuallyValue(
      async () => (await lab.events(ns, 'win1')).find((e) => e.reason === 'GuestFilesystemGrown'),
      (event) => event !== undefined,
      'the Event of the growth on the VM',
    );
    assert.include(note?.note, line);
  });
});
