import { describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { GUEST_INIT } from '../../../../src/demo/lab/guest-init.js';
import { moduleDepends, moduleLoadOrder } from '../../../../src/demo/lab/kernel-modules.js';
import { labDiskXml, labDomainXml } from '../../../../src/demo/lab/lab-domain.js';
import { newcArchive } from '../../../../src/demo/lab/newc-archive.js';
import { VmLabError } from '../../../../src/demo/lab/vm-lab-error.js';
import { expectRejection, expectThrow } from '../../../support/expect-error.js';
import { onCleanup } from '../../../support/cleanup.js';

/** The entries of a newc archive: name, mode, size, rdev and data, read back by its format. */
function readNewc(
  archive: Buffer,
): Array<{ name: string; mode: number; data: Buffer; rdev: [number, number] }> {
  const entries = [];
  let at = 0;
  for (;;) {
    assert.strictEqual(archive.subarray(at, at + 6).toString(), '070701', `magic at ${at}`);
    const field = (i: number) =>
      Number.parseInt(archive.subarray(at + 6 + i * 8, at + 14 + i * 8).toString(), 16);
    const mode = field(1);
    const size = field(6);
    const rdev: [number, number] = [field(9), field(10)];
    const nameSize = field(11);
    const name = archive.subarray(at + 110, at + 110 + nameSize - 1).toString();
    let data = at + 110 + nameSize;
    data += (4 - (data % 4)) % 4;
    if (name === 'TRAILER!!!') return entries;
    entries.push({ name, mode, data: archive.subarray(data, data + size), rdev });
    at = data + size;
    at += (4 - (at % 4)) % 4;
  }
}

describe('the VM lab', () => {
  it('writes an initramfs as a newc cpio archive: directories, files, a symbolic link, a device node, a trailer', () => {
    const archive = newcArchive([
      { kind: 'dir', path: 'bin' },
      { kind: 'file', path: 'bin/hello', data: Buffer.from('hi!'), mode: 0o755 },
      { kind: 'symlink', path: 'bin/hi', target: 'hello' },
      { kind: 'char', path: 'console', major: 5, minor: 1 },
      { kind: 'file', path: 'init', data: Buffer.from('#!/bin/sh\n') },
    ]);
    assert.strictEqual(archive.length % 4, 0);
    const entries = readNewc(archive);
    assert.deepStrictEqual(
      entries.map((e) => [e.name, e.mode.toString(8), e.data.toString(), e.rdev]),
      [
        ['bin', '40755', '', [0, 0]],
        ['bin/hello', '100755', 'hi!', [0, 0]],
        ['bin/hi', '120777', 'hello', [0, 0]],
        ['console', '20600', '', [5, 1]],
        ['init', '100644', '#!/bin/sh\n', [0, 0]],
      ],
    );
    assert.deepStrictEqual(
      newcArchive([{ kind: 'dir', path: 'x' }]),
      newcArchive([{ kind: 'dir', path: 'x' }]),
      'the same bytes each time',
    );
  });

  it("reads a module's depends= and orders modules after their dependencies", async () => {
    const ko = (depends: string) =>
      Buffer.from(`\x7fELF...\0license=GPL\0depends=${depends}\0vermagic=6.1\0`);
    assert.deepStrictEqual(moduleDepends(ko('scsi_mod,t10-pi')), ['scsi_mod', 't10_pi']);
    assert.deepStrictEqual(moduleDepends(ko('')), []);
    assert.deepStrictEqual(moduleDepends(Buffer.from('no modinfo')), []);
    const dir = await mkdtemp(join(tmpdir(), 'voe-modules-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    await mkdir(join(dir, 'kernel', 'drivers'), { recursive: true });
    const files: Record<string, string> = {
      'virtio.ko': '',
      'virtio_ring.ko': '',
      'virtio_blk.ko': 'virtio,virtio_ring',
      't10-pi.ko': '',
      'scsi_mod.ko': '',
      'sd_mod.ko': 'scsi_mod,t10-pi',
    };
    for (const [name, depends] of Object.entries(files))
      await writeFile(join(dir, 'kernel', 'drivers', name), ko(depends));
    const order = (await moduleLoadOrder(dir, ['virtio_blk', 'sd_mod', 'virtio'])).map((f) =>
      basename(f),
    );
    assert.deepStrictEqual(order, [
      'virtio.ko',
      'virtio_ring.ko',
      'virtio_blk.ko',
      'scsi_mod.ko',
      't10-pi.ko',
      'sd_mod.ko',
    ]);
    await expectRejection(
      moduleLoadOrder(dir, ['virtio_scsi']),
      (error: VmLabError) => error.code === 'VMLAB_INITRAMFS_FAILED',
    );
  });

  it('describes the domain as KubeVirt shapes it: TCG, direct kernel boot, disks with serials, the agent channel', () => {
    const xml = labDomainXml({
      name: "lab_vm'<1>",
      vmlinuz: '/w/vmlinuz',
      initramfs: '/w/initramfs.gz',
      disks: [
        { file: '/w/vda.raw', target: 'vda', bus: 'virtio', serial: 'a&b' },
        { file: '/w/sda.raw', target: 'sda', bus: 'scsi' },
      ],
      agent: 'no-exec',
      consoleLog: '/w/console.log',
    });
    assert.include(xml, "<domain type='qemu'>");
    assert.include(xml, '<name>lab_vm&apos;&lt;1&gt;</name>');
    assert.include(xml, "<target dev='vda' bus='virtio'/>");
    assert.include(xml, '<serial>a&amp;b</serial>');
    assert.include(xml, "<controller type='scsi' index='0' model='virtio-scsi'/>");
    assert.include(xml, "<target type='virtio' name='org.qemu.guest_agent.0'/>");
    assert.include(xml, 'voe.agent=no-exec');
    assert.strictEqual(xml.match(/<serial>/g)?.length, 1);
    assert.notInclude(xml, 'qemu:commandline');
    const quiet = labDomainXml({
      name: 'lab_vm',
      vmlinuz: '/w/vmlinuz',
      initramfs: '/w/initramfs.gz',
      disks: [{ file: '/w/sda.raw', target: 'sda', bus: 'scsi' }],
      agent: 'on',
      consoleLog: '/w/console.log',
      scsiChangeEvents: false,
    });
    assert.include(quiet, "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'");
    assert.include(quiet, "<qemu:arg value='virtio-scsi-pci.param_change=off'/>");
    const base = {
      name: 'lab_vm',
      vmlinuz: '/w/vmlinuz',
      initramfs: '/w/initramfs.gz',
      disks: [],
      agent: 'on' as const,
      consoleLog: '/w/console.log',
    };
    assert.include(
      labDomainXml({ ...base, filesystemOn: 'vda' }),
      'voe.agent=on voe.fs=vda</cmdline>',
    );
    expectThrow(
      () => labDomainXml({ ...base, filesystemOn: 'vda init=/bin/sh' }),
      (error: VmLabError) => error.code === 'VMLAB_DOMAIN_FAILED',
    );
    assert.notInclude(labDomainXml(base), '<interface');
    const networked = labDomainXml({ ...base, userNetwork: true });
    assert.include(networked, "<interface type='user'>\n      <model type='virtio'/>");
    assert.include(networked, 'voe.agent=on voe.net=user</cmdline>');
  });

  it("lays out Harvester's disks with no serial: virtio root, SATA cdrom, virtio-scsi controller, hotplugged SCSI disks left to attach-device", () => {
    const disks = [
      { file: '/w/vda.raw', target: 'vda', bus: 'virtio' },
      { file: '/w/sda.raw', target: 'sda', bus: 'sata', device: 'cdrom' },
      { file: '/w/sdb.raw', target: 'sdb', bus: 'scsi', hotplug: true },
      { file: '/w/sdc.raw', target: 'sdc', bus: 'scsi', hotplug: true },
    ] as const;
    const xml = labDomainXml({
      name: 'lab_vm',
      vmlinuz: '/w/vmlinuz',
      initramfs: '/w/initramfs.gz',
      disks,
      agent: 'on',
      consoleLog: '/w/console.log',
    });
    assert.notInclude(xml, '<serial>');
    assert.include(xml, "<target dev='vda' bus='virtio'/>");
    assert.include(
      xml,
      "<disk type='file' device='cdrom'>\n      <driver name='qemu' type='raw'/>\n      <source file='/w/sda.raw'/>\n      <target dev='sda' bus='sata'/>\n      <readonly/>\n    </disk>",
    );
    // The controller is there for the disks hotplugged later; they are not in the domain yet.
    assert.include(xml, "<controller type='scsi' index='0' model='virtio-scsi'/>");
    assert.notInclude(xml, "dev='sdb'");
    assert.notInclude(xml, "dev='sdc'");
    assert.strictEqual(
      labDiskXml(disks[2]),
      "<disk type='file' device='disk'>\n  <driver name='qemu' type='raw' cache='none'/>\n  <source file='/w/sdb.raw'/>\n  <target dev='sdb' bus='scsi'/>\n</disk>\n",
    );
  });

  it("the guest's init finds the agent's port under /sys/class/virtio-ports and honours voe.agent", () => {
    assert.include(GUEST_INIT, '/sys/class/virtio-ports/*');
    assert.include(GUEST_INIT, 'org.qemu.guest_agent.0');
    assert.include(
      GUEST_INIT,
      'qemu-ga -m virtio-serial -p "$port" -b guest-exec,guest-exec-status -d',
    );
    assert.match(GUEST_INIT, /insmod "\/lib\/modules\/\$m"/);
    assert.include(GUEST_INIT, 'mount -t ext4 "/dev/$fs" /data');
  });
});
