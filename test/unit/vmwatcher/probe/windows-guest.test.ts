/**
 * The guest probe on a Windows guest: no /bin/sh; the disk tied to its \\.\PhysicalDriveN from
 * the filesystems the guest agent lists, at the size Get-Disk gives through powershell.exe, else
 * the size of its filesystem from the same list. The agent's answers have the shapes of QEMU's
 * QGA schema (qga/qapi-schema.json: GuestFilesystemInfo with name, mountpoint, type, used-bytes, total-bytes and disk[] of
 * GuestDiskAddress with pci-controller, bus-type, bus, target, unit, serial, dev) as qemu-ga on
 * Windows fills them (volume GUID names, drive-letter mount points, \\.\PhysicalDriveN devices).
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import { agentFilesystemList } from '../../../../src/vmwatcher/probe/filesystem-list.js';
import { GuestProbeError } from '../../../../src/vmwatcher/probe/guest-probe-error.js';
import { VirshGuestProbe } from '../../../../src/vmwatcher/probe/virsh-guest-probe.js';
import type { VirshHost, VirshTransport } from '../../../../src/vmwatcher/probe/virsh-transport.js';
import { domainName, windowsGuest } from '../../../../src/vmwatcher/probe/vmi-disk.js';
import { deriveStage } from '../../../../src/vmwatcher/derive-stage.js';
import { Phase, StageReason } from '../../../../src/vmwatcher/index.js';
import {
  claim,
  input,
  instance,
  launcher,
  volume,
} from '../../../support/vmwatcher/expansion-fixtures.js';
import { windowsFsinfo } from '../../../support/vmwatcher/windows-fsinfo.js';

const GI = 1024n ** 3n;

/** KubeVirt's status.guestOSInfo for a Windows Server 2022 guest (from the agent's guest-get-osinfo). */
const WINDOWS_OS_INFO = {
  id: 'mswindows',
  kernelRelease: '20348',
  kernelVersion: '10.0',
  machine: 'x86_64',
  name: 'Microsoft Windows',
  prettyName: 'Windows Server 2022 Datacenter',
  version: 'Microsoft Windows Server 2022',
  versionId: '2022',
};

function vmi(
  options: { osInfo?: Record<string, string>; serial?: string } = {},
): VirtualMachineInstance {
  return {
    metadata: { namespace: 'lab', name: 'win1' },
    spec: {
      domain: {
        devices: {
          disks: [
            {
              name: 'disk-0',
              disk: { bus: 'scsi' },
              ...(options.serial ? { serial: options.serial } : {}),
            },
          ],
        },
      },
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'AgentConnected', status: 'True' }],
      ...(options.osInfo ? { guestOSInfo: options.osInfo } : {}),
    },
  };
}

/** virsh dumpxml of the Windows VM: its disk sda at `unit` on a virtio-scsi controller at PCI 0000:02:01.0. */
function windowsDomain(unit: number): string {
  return `<domain type='kvm'><name>lab_win1</name><devices>
    <disk type='block' device='disk'>
      <target dev='sda' bus='scsi'/>
      <address type='drive' controller='0' bus='0' target='0' unit='${unit}'/>
    </disk>
    <controller type='scsi' index='0' model='virtio-non-transitional'>
      <address type='pci' domain='0x0000' bus='0x02' slot='0x01' function='0x0'/>
    </controller>
  </devices></domain>`;
}

/** Get-Disk of disk 0 as Windows PowerShell 5.1 prints it through ConvertTo-Json (PartitionStyle as its name). */
const GET_DISK_0 = JSON.stringify({
  Number: 0,
  Size: Number(40n * GI),
  PartitionStyle: 'GPT',
  LogicalSectorSize: 512,
});

/**
 * virsh next to a Windows guest: domblkinfo and dumpxml answer; guest-exec of /bin/sh fails to
 * start (qga/commands.c qmp_guest_exec: g_spawn_async_with_pipes' "Failed to execute child
 * process"), and so does powershell.exe unless `getDisk` is what Get-Disk prints: then
 * guest-exec gives a pid and guest-exec-status that output, base64 (qmp_guest_exec_status).
 */
class WindowsVirsh implements VirshTransport {
  readonly name = 'scripted-windows';
  readonly calls: Array<readonly string[]> = [];
  constructor(
    private readonly serial: string | undefined,
    private readonly unit = 0,
    private readonly filesystemBytes = 39n * GI,
    private readonly getDisk?: string,
  ) {}

  async virsh(_host: VirshHost, args: readonly string[]): Promise<string> {
    this.calls.push(args);
    if (args[0] === 'domblkinfo')
      return `Capacity:       ${40n * GI}\nAllocation:     0\nPhysical:       ${40n * GI}\n`;
    if (args[0] === 'dumpxml') return windowsDomain(this.unit);
    const command = JSON.parse(args[args.length - 1]!) as {
      execute: string;
      arguments?: { path?: string };
    };
    if (command.execute === 'guest-exec') {
      const path = command.arguments?.path ?? '';
      if (path === 'powershell.exe' && this.getDisk !== undefined)
        return JSON.stringify({ return: { pid: 4242 } });
      throw new GuestProbeError(
        'PROBE_VIRSH_FAILED',
        `virsh qemu-agent-command failed: error: internal error: unable to execute QEMU agent command 'guest-exec': Guest agent command failed, error was 'Failed to execute child process “${path}” (No such file or directory)'`,
      );
    }
    if (command.execute === 'guest-exec-status')
      return JSON.stringify({
        return: {
          exited: true,
          exitcode: 0,
          'out-data': Buffer.from(this.getDisk ?? '').toString('base64'),
        },
      });
    if (command.execute === 'guest-get-fsinfo')
      return windowsFsinfo(this.serial, this.filesystemBytes);
    throw new Error(`unexpected ${command.execute}`);
  }

  /** The programs guest-exec was asked to start. */
  get started(): string[] {
    return this.calls
      .filter((args) => args.join(' ').includes('"guest-exec"'))
      .map(
        (args) =>
          (JSON.parse(args[args.length - 1]!) as { arguments: { path: string } }).arguments.path,
      );
  }
}

const target = (of: VirtualMachineInstance) => ({
  vmi: of,
  volumeName: 'disk-0',
  target: 'sda',
  claimName: 'win1-disk-0',
  launcherPod: 'virt-launcher-win1-abcde',
});

describe('the guest probe on a Windows guest', () => {
  it('tells a Windows guest from its guestOSInfo', () => {
    assert.strictEqual(
      windowsGuest(vmi({ osInfo: WINDOWS_OS_INFO })),
      'Windows Server 2022 Datacenter',
    );
    assert.isUndefined(windowsGuest(vmi({ osInfo: { id: 'debian', name: 'Debian GNU/Linux' } })));
    assert.isUndefined(windowsGuest(vmi()));
  });

  const table: Array<{
    name: string;
    vmi: VirtualMachineInstance;
    serial: string | undefined;
    /** The disk's SCSI unit in the domain (0: where the agent puts C:'s disk). */
    unit?: number;
    withList: boolean;
    /** What Get-Disk prints through powershell.exe; powershell.exe cannot start without it. */
    getDisk?: string;
    guestBytes?: bigint;
    /** The reading's evidence and device when it is not the filesystem C:. */
    blockDevice?: string;
    unverifiable?: RegExp;
    /** The programs guest-exec was asked to start, in order. */
    started: string[];
  }> = [
    {
      name: 'guestOSInfo says Windows, the disk has a serial, powershell.exe cannot start: the filesystem C: on it',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      guestBytes: 39n * GI,
      started: ['powershell.exe'],
    },
    {
      name: "guestOSInfo says Windows, no serial, powershell.exe cannot start: the filesystem C: at the disk's SCSI address",
      vmi: vmi({ osInfo: WINDOWS_OS_INFO }),
      serial: undefined,
      withList: true,
      guestBytes: 39n * GI,
      started: ['powershell.exe'],
    },
    {
      name: "guestOSInfo says Windows, no serial, no filesystem at the disk's address: unverifiable, naming Windows",
      vmi: vmi({ osInfo: WINDOWS_OS_INFO }),
      serial: undefined,
      unit: 1,
      withList: true,
      unverifiable:
        /Windows Server 2022 Datacenter.*no filesystem with a size sits at disk sda's address \(controller 0000:02:01\.0 bus 0 target 0 unit 1\)/,
      started: [],
    },
    {
      name: 'guestOSInfo says Windows, no filesystem list: unverifiable, naming Windows',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: false,
      unverifiable: /the guest runs Windows Server 2022 Datacenter/,
      started: [],
    },
    {
      name: 'no guestOSInfo, neither /bin/sh nor powershell.exe can start: the filesystem list, as on Windows',
      vmi: vmi({ serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      guestBytes: 39n * GI,
      started: ['/bin/sh', 'powershell.exe'],
    },
    {
      name: 'no guestOSInfo, /bin/sh cannot start, no serial, nothing at its address: unverifiable, naming Windows',
      vmi: vmi(),
      serial: undefined,
      unit: 1,
      withList: true,
      unverifiable: /could not start \/bin\/sh.*Windows/,
      started: ['/bin/sh'],
    },
    {
      name: 'guestOSInfo says Windows, the disk has a serial: its PhysicalDrive, at the size Get-Disk gives',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      getDisk: GET_DISK_0,
      guestBytes: 40n * GI,
      blockDevice: '\\\\.\\PhysicalDrive0',
      started: ['powershell.exe'],
    },
    {
      name: "guestOSInfo says Windows, no serial: the PhysicalDrive at the disk's SCSI address, at the size Get-Disk gives",
      vmi: vmi({ osInfo: WINDOWS_OS_INFO }),
      serial: undefined,
      withList: true,
      getDisk: GET_DISK_0,
      guestBytes: 40n * GI,
      blockDevice: '\\\\.\\PhysicalDrive0',
      started: ['powershell.exe'],
    },
    {
      name: 'no guestOSInfo, /bin/sh cannot start: the PhysicalDrive, at the size Get-Disk gives',
      vmi: vmi({ serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      getDisk: GET_DISK_0,
      guestBytes: 40n * GI,
      blockDevice: '\\\\.\\PhysicalDrive0',
      started: ['/bin/sh', 'powershell.exe'],
    },
    {
      name: 'Get-Disk printing what is not its JSON: the filesystem C: on the disk',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      getDisk:
        'Number Friendly Name  Size\n------ -------------  ----\n0      QEMU HARDDISK  40 GB\n',
      guestBytes: 39n * GI,
      started: ['powershell.exe'],
    },
  ];
  for (const row of table)
    it(row.name, async () => {
      const virsh = new WindowsVirsh(row.serial, row.unit, 39n * GI, row.getDisk);
      const probe = new VirshGuestProbe({
        transport: virsh,
        ...(row.withList ? { filesystems: agentFilesystemList(virsh, domainName) } : {}),
      });
      const reading = await probe.read(target(row.vmi));
      assert.strictEqual(reading.hypervisorBytes, 40n * GI);
      assert.isUndefined(reading.failure, reading.failure);
      if (row.guestBytes !== undefined) {
        assert.strictEqual(reading.guestBytes, row.guestBytes);
        assert.strictEqual(reading.guestEvidence, row.blockDevice ? 'BlockDevice' : 'Filesystem');
        assert.strictEqual(reading.guestDevice, row.blockDevice ?? 'C:\\');
      } else {
        assert.match(reading.guestUnverifiable ?? '', row.unverifiable!);
        assert.include(reading.guestUnverifiableRemedy ?? '', 'Windows guest');
      }
      assert.deepStrictEqual(virsh.started, row.started);
    });

  it('ends in GuestUnverifiable with the Windows remedy, never NoProgress', () => {
    const running = instance({ capacity: '20Gi' });
    const stage = deriveStage({
      ...input({
        pvc: claim({ capacity: '20Gi' }),
        pv: volume('20Gi'),
        vmi: running,
        pods: [launcher(running)],
        probe: {
          hypervisorBytes: 20n * GI,
          guestUnverifiable:
            'the guest runs Windows Server 2022 Datacenter, where voe has no shell',
          guestUnverifiableRemedy: 'Check the disk in the Windows guest (Disk Management).',
        },
      }),
      now: Date.parse('2026-11-20T12:00:00Z'),
    });
    assert.strictEqual(stage.phase, Phase.Stuck);
    assert.strictEqual(stage.reason, StageReason.GuestUnverifiable);
    assert.include(stage.message, 'Windows Server 2022');
    assert.include(stage.message, 'Disk Management');
  });
});
