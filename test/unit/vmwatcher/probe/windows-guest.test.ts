/**
 * The guest probe on a Windows guest: no /bin/sh, sizes only from the filesystems the guest agent
 * lists. The agent's answers have the shapes of QEMU's QGA schema (qga/qapi-schema.json:
 * GuestFilesystemInfo with name, mountpoint, type, used-bytes, total-bytes and disk[] of
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

/** virsh next to a Windows guest: domblkinfo and dumpxml answer; guest-exec of /bin/sh fails to start. */
class WindowsVirsh implements VirshTransport {
  readonly name = 'scripted-windows';
  readonly calls: Array<readonly string[]> = [];
  constructor(
    private readonly serial: string | undefined,
    private readonly unit = 0,
    private readonly filesystemBytes = 39n * GI,
  ) {}

  async virsh(_host: VirshHost, args: readonly string[]): Promise<string> {
    this.calls.push(args);
    if (args[0] === 'domblkinfo')
      return `Capacity:       ${40n * GI}\nAllocation:     0\nPhysical:       ${40n * GI}\n`;
    if (args[0] === 'dumpxml') return windowsDomain(this.unit);
    const command = JSON.parse(args[args.length - 1]!) as { execute: string };
    if (command.execute === 'guest-exec')
      throw new GuestProbeError(
        'PROBE_VIRSH_FAILED',
        "virsh qemu-agent-command failed: error: internal error: unable to execute QEMU agent command 'guest-exec': Guest agent command failed, error was 'Failed to execute child process “/bin/sh” (No such file or directory)'",
      );
    if (command.execute === 'guest-get-fsinfo')
      return windowsFsinfo(this.serial, this.filesystemBytes);
    throw new Error(`unexpected ${command.execute}`);
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
    guestBytes?: bigint;
    unverifiable?: RegExp;
    execTried: boolean;
  }> = [
    {
      name: 'guestOSInfo says Windows, the disk has a serial: the filesystem C: on it',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      guestBytes: 39n * GI,
      execTried: false,
    },
    {
      name: "guestOSInfo says Windows, no serial: the filesystem C: at the disk's SCSI address",
      vmi: vmi({ osInfo: WINDOWS_OS_INFO }),
      serial: undefined,
      withList: true,
      guestBytes: 39n * GI,
      execTried: false,
    },
    {
      name: "guestOSInfo says Windows, no serial, no filesystem at the disk's address: unverifiable, naming Windows",
      vmi: vmi({ osInfo: WINDOWS_OS_INFO }),
      serial: undefined,
      unit: 1,
      withList: true,
      unverifiable:
        /Windows Server 2022 Datacenter.*no filesystem with a size sits at disk sda's address \(controller 0000:02:01\.0 bus 0 target 0 unit 1\)/,
      execTried: false,
    },
    {
      name: 'guestOSInfo says Windows, no filesystem list: unverifiable, naming Windows',
      vmi: vmi({ osInfo: WINDOWS_OS_INFO, serial: 'win-data' }),
      serial: 'win-data',
      withList: false,
      unverifiable: /the guest runs Windows Server 2022 Datacenter/,
      execTried: false,
    },
    {
      name: 'no guestOSInfo, /bin/sh cannot start: the filesystem list, as on Windows',
      vmi: vmi({ serial: 'win-data' }),
      serial: 'win-data',
      withList: true,
      guestBytes: 39n * GI,
      execTried: true,
    },
    {
      name: 'no guestOSInfo, /bin/sh cannot start, no serial, nothing at its address: unverifiable, naming Windows',
      vmi: vmi(),
      serial: undefined,
      unit: 1,
      withList: true,
      unverifiable: /could not start \/bin\/sh.*Windows/,
      execTried: true,
    },
  ];
  for (const row of table)
    it(row.name, async () => {
      const virsh = new WindowsVirsh(row.serial, row.unit);
      const probe = new VirshGuestProbe({
        transport: virsh,
        ...(row.withList ? { filesystems: agentFilesystemList(virsh, domainName) } : {}),
      });
      const reading = await probe.read(target(row.vmi));
      assert.strictEqual(reading.hypervisorBytes, 40n * GI);
      assert.isUndefined(reading.failure, reading.failure);
      if (row.guestBytes !== undefined) {
        assert.strictEqual(reading.guestBytes, row.guestBytes);
        assert.strictEqual(reading.guestEvidence, 'Filesystem');
        assert.strictEqual(reading.guestDevice, 'C:\\');
      } else {
        assert.match(reading.guestUnverifiable ?? '', row.unverifiable!);
        assert.include(reading.guestUnverifiableRemedy ?? '', 'Windows guest');
      }
      const execs = virsh.calls.filter((args) => args.join(' ').includes('"guest-exec"'));
      assert.strictEqual(execs.length > 0, row.execTried);
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
