/**
 * VirshGuestProbe's own logic (the order of its virsh calls, one probe per VM at a time, backoff,
 * the fallbacks) over a scripted transport; the real virsh against a real guest is in
 * test/integration/vmwatcher/guest-probe-vm.alone.test.ts.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import type { FilesystemList } from '../../../../src/vmwatcher/probe/filesystem-list.js';
import { GuestProbeError } from '../../../../src/vmwatcher/probe/guest-probe-error.js';
import { VirshGuestProbe } from '../../../../src/vmwatcher/probe/virsh-guest-probe.js';
import type { VirshHost, VirshTransport } from '../../../../src/vmwatcher/probe/virsh-transport.js';
import { agentDisk } from '../../../support/vmwatcher/agent-disk.js';
import { TestClock } from '../../../support/test-clock.js';

const GI = 1024n ** 3n;

function vmi(options: { agent?: boolean; serial?: string } = {}): VirtualMachineInstance {
  return {
    metadata: { namespace: 'lab', name: 'vm1' },
    spec: {
      domain: {
        devices: {
          disks: [
            {
              name: 'disk-0',
              disk: { bus: 'virtio' },
              ...(options.serial ? { serial: options.serial } : {}),
            },
          ],
        },
      },
    },
    status: {
      phase: 'Running',
      conditions: options.agent === false ? [] : [{ type: 'AgentConnected', status: 'True' }],
    },
  };
}

const target = (of: VirtualMachineInstance) => ({
  vmi: of,
  volumeName: 'disk-0',
  target: 'vda',
  claimName: 'vm1-disk-0',
  launcherPod: 'virt-launcher-vm1-abcde',
});

/** A transport answering as virsh would, recording each call. */
class ScriptedVirsh implements VirshTransport {
  readonly name = 'scripted';
  readonly calls: Array<{ host: VirshHost; args: readonly string[] }> = [];
  capacity = 20n * GI;
  guestSectors = 20n * 2n * 1024n * 1024n;
  refuseExec = false;
  failDomblkinfo = false;
  /** Resolves the pending domblkinfo calls when set. */
  gate: Promise<void> | undefined;
  active = 0;
  maxActive = 0;

  async virsh(host: VirshHost, args: readonly string[]): Promise<string> {
    this.calls.push({ host, args });
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.gate) await this.gate;
      if (args[0] === 'domblkinfo') {
        if (this.failDomblkinfo)
          throw new GuestProbeError(
            'PROBE_VIRSH_FAILED',
            "virsh domblkinfo failed: error: failed to get domain 'lab_vm1'",
          );
        return `Capacity:       ${this.capacity}\nAllocation:     0\nPhysical:       ${this.capacity}\n`;
      }
      if (args[0] === 'dumpxml')
        // The domain's disk as libvirt prints it: virtio-blk vda at PCI 0000:00:05.0, no serial.
        return [
          "<domain type='kvm' id='1'>",
          '  <devices>',
          "    <disk type='block' device='disk'>",
          "      <driver name='qemu' type='raw' cache='none' error_policy='stop' discard='unmap'/>",
          "      <source dev='/dev/disk-0' index='1'/>",
          "      <target dev='vda' bus='virtio'/>",
          "      <alias name='ua-disk-0'/>",
          "      <address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0'/>",
          '    </disk>',
          '  </devices>',
          '</domain>',
        ].join('\n');
      const command = JSON.parse(args[args.length - 1]!) as { execute: string };
      if (command.execute === 'guest-exec') {
        if (this.refuseExec)
          throw new GuestProbeError(
            'PROBE_VIRSH_FAILED',
            "virsh qemu-agent-command failed: error: internal error: unable to execute QEMU agent command 'guest-exec': Command guest-exec has been disabled",
          );
        return '{"return":{"pid":7}}';
      }
      const out = Buffer.from(
        `vda\t${this.guestSectors}\t\t/sys/devices/pci0000:00/0000:00:05.0/virtio2\n`,
      ).toString('base64');
      return JSON.stringify({ return: { exited: true, exitcode: 0, 'out-data': out } });
    } finally {
      this.active--;
    }
  }
}

describe('VirshGuestProbe', () => {
  it("reads the hypervisor's capacity and the guest's block device, with arguments as arrays", async () => {
    const virsh = new ScriptedVirsh();
    const probe = new VirshGuestProbe({ transport: virsh });
    const reading = await probe.read(target(vmi()));
    assert.deepStrictEqual(reading, {
      hypervisorBytes: 20n * GI,
      guestBytes: 20n * GI,
      guestEvidence: 'BlockDevice',
      guestDevice: 'vda',
    });
    assert.deepStrictEqual(virsh.calls[0], {
      host: { namespace: 'lab', launcherPod: 'virt-launcher-vm1-abcde' },
      args: ['domblkinfo', 'lab_vm1', 'vda'],
    });
    const exec = virsh.calls[1]!.args;
    assert.deepStrictEqual(exec.slice(0, 4), ['qemu-agent-command', '--timeout', '20', 'lab_vm1']);
    const command = JSON.parse(exec[4]!) as { arguments: { path: string; arg: string[] } };
    assert.strictEqual(command.arguments.path, '/bin/sh');
    assert.include(command.arguments.arg[1], '/sys/block/*');
  });

  it('does not ask the guest without AgentConnected: GuestUnverifiable, the hypervisor size kept', async () => {
    const virsh = new ScriptedVirsh();
    const reading = await new VirshGuestProbe({ transport: virsh }).read(
      target(vmi({ agent: false })),
    );
    assert.strictEqual(reading.hypervisorBytes, 20n * GI);
    assert.isUndefined(reading.guestBytes);
    assert.match(reading.guestUnverifiable ?? '', /no AgentConnected condition/);
    assert.lengthOf(virsh.calls, 1);
  });

  it("falls back to the filesystem list when guest-exec is refused, and says it is a filesystem's size", async () => {
    const virsh = new ScriptedVirsh();
    virsh.refuseExec = true;
    const filesystems: FilesystemList = {
      read: async () => [
        {
          diskName: 'vda1',
          mountPoint: '/',
          totalBytes: 19n * GI,
          disks: [agentDisk({ serial: 'root', busType: 'virtio' })],
        },
      ],
    };
    const reading = await new VirshGuestProbe({ transport: virsh, filesystems }).read(
      target(vmi({ serial: 'root' })),
    );
    assert.deepStrictEqual(reading, {
      hypervisorBytes: 20n * GI,
      guestBytes: 19n * GI,
      guestEvidence: 'Filesystem',
      guestDevice: '/',
    });
  });

  it('without a filesystem list a refused guest-exec is a failure with the hypervisor size kept', async () => {
    const virsh = new ScriptedVirsh();
    virsh.refuseExec = true;
    const reading = await new VirshGuestProbe({ transport: virsh }).read(target(vmi()));
    assert.strictEqual(reading.hypervisorBytes, 20n * GI);
    assert.match(reading.failure ?? '', /guest-exec has been disabled/);
  });

  it('probes one VM at a time', async () => {
    const virsh = new ScriptedVirsh();
    let open!: () => void;
    virsh.gate = new Promise((resolve) => (open = resolve));
    const probe = new VirshGuestProbe({ transport: virsh });
    const readings = Promise.all([probe.read(target(vmi())), probe.read(target(vmi()))]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.strictEqual(virsh.calls.length, 1, 'the second waits for the first');
    open();
    const [a, b] = await readings;
    assert.strictEqual(a.guestBytes, 20n * GI);
    assert.strictEqual(b.guestBytes, 20n * GI);
    assert.strictEqual(virsh.maxActive, 1);
  });

  it('backs off after a failure, growing per failure, and clears it on success', async () => {
    const virsh = new ScriptedVirsh();
    virsh.failDomblkinfo = true;
    const clock = new TestClock();
    const probe = new VirshGuestProbe({
      transport: virsh,
      clock,
      backoff: { baseMs: 1_000, maxMs: 10_000 },
    });
    const first = await probe.read(target(vmi()));
    assert.match(first.failure ?? '', /failed to get domain/);
    assert.lengthOf(virsh.calls, 1);
    const during = await probe.read(target(vmi()));
    assert.match(during.failure ?? '', /1 failed in a row; next try in 1 s/);
    assert.lengthOf(virsh.calls, 1, 'no virsh call while backing off');
    await clock.advance(1_000);
    await probe.read(target(vmi()));
    assert.lengthOf(virsh.calls, 2);
    await clock.advance(1_000);
    assert.match(
      (await probe.read(target(vmi()))).failure ?? '',
      /2 failed in a row; next try in 1 s/,
    );
    await clock.advance(1_000);
    virsh.failDomblkinfo = false;
    const recovered = await probe.read(target(vmi()));
    assert.strictEqual(recovered.guestBytes, 20n * GI);
    virsh.failDomblkinfo = true;
    await probe.read(target(vmi()));
    assert.match((await probe.read(target(vmi()))).failure ?? '', /1 failed in a row/);
  });

  it("does not back off when only the guest's side failed: the hypervisor is read each time", async () => {
    const virsh = new ScriptedVirsh();
    virsh.refuseExec = true;
    const probe = new VirshGuestProbe({ transport: virsh, clock: new TestClock() });
    await probe.read(target(vmi()));
    virsh.capacity = 30n * GI;
    const again = await probe.read(target(vmi()));
    assert.strictEqual(again.hypervisorBytes, 30n * GI);
    assert.notMatch(again.failure ?? '', /in a row/);
  });

  it('names what the guest has when no device matches', async () => {
    const virsh = new ScriptedVirsh();
    const reading = await new VirshGuestProbe({ transport: virsh }).read(
      target(vmi({ serial: 'missing-serial' })),
    );
    assert.match(
      reading.failure ?? '',
      /no guest block device matches disk with serial missing-serial; the guest has vda \(virtio\)/,
    );
  });
});
