/**
 * agentFilesystemGrower: the tracker's GuestFilesystemGrower port over the guest-agent runner,
 * with a scripted guest agent. plan() only reads; grow() runs the plan and answers the mount
 * point's sizes before and after (guest-get-fsinfo's, else the filesystem's own), and every
 * command run; a growth the agent does not show is a failure. A Windows disk the probe tied to its
 * \\.\PhysicalDriveN is grown by Resize-Partition through powershell.exe and proven by
 * guest-get-fsinfo (the guest's answers in test/support/guest-grow/windows-guest.ts); a Windows
 * guest whose disk is not tied to one is not grown.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { agentFilesystemGrower } from '../../../../src/vmwatcher/index.js';
import type { GuestGrowthTarget } from '../../../../src/vmwatcher/guest-filesystem-grower.js';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import { GiB } from '../../../support/fsresize/guest-outputs.js';
import { ScriptedAgent } from '../../../support/guest-grow/scripted-agent.js';
import { EXT_TOOLS, wholeDisk } from '../../../support/guest-grow/guest-stages.js';
import { expectRejection } from '../../../support/expect-error.js';
import {
  E_OFFSET,
  RESIZE_E,
  WINDOWS_DISK,
  grownDriveBytes,
  windowsAgent,
} from '../../../support/guest-grow/windows-guest.js';

function target(guestOSInfo?: { id: string; name: string }): GuestGrowthTarget {
  const vmi = {
    metadata: { namespace: 'default', name: 'vm1' },
    status: guestOSInfo ? { guestOSInfo } : {},
  } as VirtualMachineInstance;
  return { vmi, volumeName: 'data', target: 'vdb', claimName: 'vm1-data', guestDevice: 'vdb' };
}

/** Before: 10 GiB of ext4 on a 20 GiB disk; after resize2fs: 20 GiB. */
const growing = (): ScriptedAgent =>
  new ScriptedAgent([wholeDisk(20 * GiB, 2621440), wholeDisk(20 * GiB, 5242880)], EXT_TOOLS);

describe('agentFilesystemGrower', () => {
  it('plan() gives the lines a user types and runs nothing', async () => {
    const agent = growing();
    const result = await agentFilesystemGrower(() => agent).plan(target());
    assert.deepStrictEqual(result, { kind: 'planned', commands: ['resize2fs /dev/vdb'] });
    assert.deepStrictEqual(agent.ran, []);
  });

  it('grow() runs the plan and answers the mount point, its bytes before and after, the commands', async () => {
    const agent = growing();
    const result = await agentFilesystemGrower(() => agent).grow(target());
    assert.deepInclude(result, {
      kind: 'grown',
      mountPoint: '/data',
      beforeBytes: 10n * BigInt(GiB),
      afterBytes: 20n * BigInt(GiB),
    });
    assert.deepStrictEqual(agent.ran, [['resize2fs', '/dev/vdb']]);
    assert.deepStrictEqual(
      result.kind === 'grown' ? result.ran.map((r) => [r.command, r.exitCode]) : [],
      [['resize2fs /dev/vdb', 0]],
    );
  });

  /** guest-get-fsinfo's entry of /data as qemu-ga answers it: total-bytes from statvfs (used + available). */
  const fsinfoOf = (totalBytes: number): unknown => [
    {
      name: 'vdb',
      mountpoint: '/data',
      type: 'ext4',
      'total-bytes': totalBytes,
      'used-bytes': 4096 * 1024,
      disk: [{ dev: '/dev/vdb', serial: 'data', 'bus-type': 'virtio' }],
    },
  ];

  it("grow() answers the sizes the guest agent's guest-get-fsinfo shows before and after", async () => {
    const agent = growing();
    agent.fsinfoByStage = [fsinfoOf(10_254_966_784), fsinfoOf(20_575_797_248)];
    const result = await agentFilesystemGrower(() => agent).grow(target());
    assert.deepInclude(result, {
      kind: 'grown',
      mountPoint: '/data',
      beforeBytes: 10_254_966_784n,
      afterBytes: 20_575_797_248n,
    });
  });

  it('a growth the guest agent does not show (guest-get-fsinfo no larger) is GUESTRUN_SIZE_NOT_REACHED', async () => {
    const agent = growing();
    agent.fsinfoByStage = [fsinfoOf(10_254_966_784), fsinfoOf(10_254_966_784)];
    const result = await agentFilesystemGrower(() => agent).grow(target());
    assert.strictEqual(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.strictEqual(result.code, 'GUESTRUN_SIZE_NOT_REACHED');
    assert.match(
      result.message,
      /guest-get-fsinfo shows \/data at 10254966784 bytes after the growth/,
    );
    assert.deepStrictEqual(
      result.ran.map((r) => r.command),
      ['resize2fs /dev/vdb'],
    );
  });

  it("an agent refusing guest-get-fsinfo: grown, with the filesystem's own size as the steps read it", async () => {
    const agent = growing();
    agent.fsinfo = async () => {
      throw new Error(
        'virsh qemu-agent-command failed: Command guest-get-fsinfo has been disabled',
      );
    };
    const result = await agentFilesystemGrower(() => agent).grow(target());
    assert.deepInclude(result, {
      kind: 'grown',
      beforeBytes: 10n * BigInt(GiB),
      afterBytes: 20n * BigInt(GiB),
    });
  });

  it('a grown guest has nothing to do, in plan() and grow()', async () => {
    const agent = new ScriptedAgent([wholeDisk(20 * GiB, 5242880)], EXT_TOOLS);
    const grower = agentFilesystemGrower(() => agent);
    assert.deepStrictEqual(await grower.plan(target()), { kind: 'nothing-to-do' });
    assert.deepStrictEqual(await grower.grow(target()), { kind: 'nothing-to-do' });
    assert.deepStrictEqual(agent.ran, []);
  });

  it('a failed step is a failure with its code and the command that failed', async () => {
    const agent = new ScriptedAgent(
      [wholeDisk(20 * GiB, 2621440), wholeDisk(20 * GiB, 5242880)],
      EXT_TOOLS,
      { 'resize2fs /dev/vdb': { exitCode: 1, stderr: 'resize2fs: Permission denied' } },
    );
    const result = await agentFilesystemGrower(() => agent).grow(target());
    assert.strictEqual(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.strictEqual(result.code, 'GUESTRUN_STEP_FAILED');
    assert.deepStrictEqual(
      result.ran.map((r) => [r.command, r.exitCode, r.output]),
      [['resize2fs /dev/vdb', 1, 'resize2fs: Permission denied']],
    );
  });

  it('a Windows guest whose disk is not tied to a PhysicalDrive is not grown: nothing is asked of its agent', async () => {
    const agent = growing();
    const windows = target({ id: 'mswindows', name: 'Microsoft Windows Server 2022' });
    await expectRejection(agentFilesystemGrower(() => agent).grow(windows), {
      code: 'GUESTRUN_VM_NOT_READY',
    });
    assert.deepStrictEqual(agent.calls, []);
  });
});

describe('agentFilesystemGrower on a Windows guest', () => {
  const G = GiB;
  /** The probe tied the VMI disk to \\.\PhysicalDrive1 (physicalDriveOfDisk). */
  const windows = (): GuestGrowthTarget => ({
    ...target({ id: 'mswindows', name: 'Microsoft Windows Server 2022' }),
    guestDevice: WINDOWS_DISK,
  });
  const before = { diskBytes: 20 * G, driveBytes: 10 * G - E_OFFSET };
  const after = { diskBytes: 20 * G, driveBytes: grownDriveBytes(20 * G) };
  const line =
    'Resize-Partition -DriveLetter E -Size (Get-PartitionSupportedSize -DriveLetter E).SizeMax';

  it('plan() gives the PowerShell line and runs nothing', async () => {
    const agent = windowsAgent([before, after]);
    const result = await agentFilesystemGrower(() => agent).plan(windows());
    assert.deepStrictEqual(result, { kind: 'planned', commands: [line] });
    assert.deepStrictEqual(agent.ran, []);
  });

  it("grow() runs Resize-Partition's argv and proves the drive by guest-get-fsinfo after", async () => {
    const agent = windowsAgent([before, after]);
    const result = await agentFilesystemGrower(() => agent).grow(windows());
    assert.deepStrictEqual(result, {
      kind: 'grown',
      ran: [{ command: line, exitCode: 0, output: '' }],
      mountPoint: 'E:\\',
      beforeBytes: BigInt(before.driveBytes),
      afterBytes: BigInt(after.driveBytes),
    });
    assert.deepStrictEqual(agent.ran, [RESIZE_E]);
  });

  it('a grown drive has nothing to do, in plan() and grow()', async () => {
    const agent = windowsAgent([after]);
    const grower = agentFilesystemGrower(() => agent);
    assert.deepStrictEqual(await grower.plan(windows()), { kind: 'nothing-to-do' });
    assert.deepStrictEqual(await grower.grow(windows()), { kind: 'nothing-to-do' });
    assert.deepStrictEqual(agent.ran, []);
  });

  it('refuses the recovery partition after the drive, running nothing', async () => {
    const agent = windowsAgent([{ ...before, recovery: true }]);
    const result = await agentFilesystemGrower(() => agent).grow(windows());
    assert.strictEqual(result.kind, 'refused');
    assert.strictEqual(
      result.kind === 'refused' ? result.code : '',
      'GUESTGROW_WINDOWS_RECOVERY_PARTITION',
    );
    assert.deepStrictEqual(agent.ran, []);
  });

  it('a failed Resize-Partition is a failure with its output', async () => {
    const stderr =
      'Resize-Partition : Size Not Supported\r\nActivity ID: {5e2b1b3e-0000-0000-0000-000000000000}';
    const agent = windowsAgent([before, after], { [RESIZE_E.join(' ')]: { exitCode: 1, stderr } });
    const result = await agentFilesystemGrower(() => agent).grow(windows());
    assert.strictEqual(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.strictEqual(result.code, 'GUESTRUN_STEP_FAILED');
    assert.deepStrictEqual(result.ran, [{ command: line, exitCode: 1, output: stderr }]);
  });

  it('a partition grown under a volume guest-get-fsinfo does not show grown is GUESTRUN_SIZE_NOT_REACHED', async () => {
    const agent = windowsAgent([before, { ...after, volumeBytes: before.driveBytes }]);
    const result = await agentFilesystemGrower(() => agent).grow(windows());
    assert.strictEqual(result.kind, 'failed');
    if (result.kind !== 'failed') return;
    assert.strictEqual(result.code, 'GUESTRUN_SIZE_NOT_REACHED');
    assert.match(result.message, /guest-get-fsinfo does not show E:\\ grown/);
    assert.deepStrictEqual(result.ran, [{ command: line, exitCode: 0, output: '' }]);
  });
});
