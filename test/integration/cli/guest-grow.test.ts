/**
 * `voe guest grow` against a real kube-apiserver holding the VMIs, with `--guest-probe local` and
 * a fake virsh on PATH whose guest agent answers as QEMU's does: argument errors, --dry-run
 * printing each command and why with nothing run in the guest, and a refusal recorded as a
 * GuestFilesystemNotGrown Event on the VM; on a Windows guest (guest-get-fsinfo, Get-Partition and
 * Get-Disk as test/support/guest-grow/windows-guest.ts gives them), the disk tied to its
 * \\.\PhysicalDriveN by serial, the Resize-Partition plan, the recovery partition refused, and
 * a grown drive left alone. The growth itself on Windows is in agent-filesystem-grower.test.ts.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventsV1Api } from '@kubernetes/client-node';
import { GUEST_BLOCK_SCRIPT } from '../../../src/vmwatcher/probe/guest-block-devices.js';
import { GUEST_TOOLS, GUEST_TOOLS_SCRIPT } from '../../../src/guest-grow/read/guest-tools.js';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { runVoe } from '../../support/run-voe.js';
import { eventuallyValue } from '../../support/eventually.js';
import {
  installFakeAgentVirsh,
  type FakeGuestReply,
} from '../../support/guest-grow/fake-agent-virsh.js';
import { dumpe2fsHeader } from '../../support/guest-grow/dumpe2fs-output.js';
import { lsblkOutput, sfdiskOutput } from '../../support/fsresize/guest-outputs.js';
import { LSBLK } from '../../support/guest-grow/guest-stages.js';
import {
  E_OFFSET,
  RESIZE_E,
  grownDriveBytes,
  windowsFsinfo,
  windowsStage,
  type WindowsMoment,
} from '../../support/guest-grow/windows-guest.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const NS = 'guest-grow';
const G = 1024 ** 3;
const URI = 'qemu:///system';

/**
 * A running VMI with its root disk and its data disk (serial voe-data on virtio); `windows`: a
 * Windows Server 2022 guest (KubeVirt's guestOSInfo from the agent) with both disks on SCSI, the
 * data disk's serial win-data.
 */
function vmi(name: string, windows = false) {
  const bus = windows ? 'scsi' : 'virtio';
  const prefix = windows ? 'sd' : 'vd';
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: NS },
    spec: {
      domain: {
        devices: {
          disks: [
            { name: 'rootdisk', disk: { bus } },
            { name: 'data', disk: { bus }, serial: windows ? 'win-data' : 'voe-data' },
          ],
        },
      },
      volumes: [
        { name: 'rootdisk', persistentVolumeClaim: { claimName: `${name}-rootdisk` } },
        { name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'AgentConnected', status: 'True' }],
      ...(windows
        ? {
            guestOSInfo: {
              id: 'mswindows',
              name: 'Microsoft Windows',
              prettyName: 'Windows Server 2022 Datacenter',
            },
          }
        : {}),
      volumeStatus: [
        { name: 'rootdisk', target: `${prefix}a` },
        { name: 'data', target: `${prefix}b` },
      ],
    },
  };
}

/** What a Debian guest prints: vdb (serial voe-data, 20 GiB) and, on it, what `lsblk` gives. */
function guest(lsblk: string, more: Record<string, string>): Record<string, FakeGuestReply> {
  return {
    [`/bin/sh -c ${GUEST_BLOCK_SCRIPT}`]: {
      stdout:
        'vda\t20971520\t\t/sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/virtio1\n' +
        'vdb\t41943040\tvoe-data\t/sys/devices/pci0000:00/0000:00:02.1/0000:02:00.0/virtio2\n',
    },
    [`/bin/sh -c ${GUEST_TOOLS_SCRIPT} sh ${GUEST_TOOLS.join(' ')}`]: {
      stdout: 'sfdisk\npartx\nresize2fs\ndumpe2fs\ngetconf\n',
    },
    [LSBLK]: { stdout: lsblk },
    'getconf PAGESIZE': { stdout: '4096\n' },
    ...Object.fromEntries(Object.entries(more).map(([key, stdout]) => [key, { stdout }])),
  };
}

const BLKINFO = `Capacity:       ${20 * G}\nAllocation:     0\nPhysical:       ${20 * G}\n`;

/** What a Windows guest answers at one moment: Get-Partition and Get-Disk of disk 1 (E:, serial win-data). */
function windowsGuest(moment: WindowsMoment): Record<string, FakeGuestReply> {
  return Object.fromEntries(
    Object.entries(windowsStage(moment)).map(([key, stdout]) => [key, { stdout: String(stdout) }]),
  );
}

/** The Windows guests: E: to grow, E: with the recovery partition after it, E: already grown. */
const WINDOWS: Record<string, WindowsMoment> = {
  win1: { diskBytes: 20 * G, driveBytes: 10 * G - E_OFFSET, serial: 'win-data' },
  win2: { diskBytes: 20 * G, driveBytes: 10 * G - E_OFFSET, recovery: true, serial: 'win-data' },
  win3: { diskBytes: 20 * G, driveBytes: grownDriveBytes(20 * G), serial: 'win-data' },
};

describe('voe guest grow', function () {
  this.timeout(120_000);
  let dir = '';
  let log = '';
  let env: NodeJS.ProcessEnv = {};
  const voe = (args: string[]) =>
    runVoe(
      ['guest', 'grow', ...args, '--guest-probe', 'local', '--kubeconfig', cp.kubeconfigPath],
      { env },
    );

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voe-guest-grow-'));
    log = join(dir, 'guest-exec.log');
    await writeFile(log, '');
    const domain = { blklist: '', xml: '<domain/>', blkinfo: { vdb: BLKINFO } };
    const windowsDomain = { blklist: '', xml: '<domain/>', blkinfo: { sdb: BLKINFO } };
    const windows = Object.keys(WINDOWS).map((name) => `${NS}_${name}`);
    const bin = await installFakeAgentVirsh(join(dir, 'bin'), {
      uri: URI,
      domains: {
        [`${NS}_vm1`]: domain,
        [`${NS}_vm2`]: domain,
        ...Object.fromEntries(windows.map((name) => [name, windowsDomain])),
      },
      log,
      fsinfo: Object.fromEntries(
        Object.entries(WINDOWS).map(([name, moment]) => [`${NS}_${name}`, windowsFsinfo(moment)]),
      ),
      guests: {
        ...Object.fromEntries(
          Object.entries(WINDOWS).map(([name, moment]) => [`${NS}_${name}`, windowsGuest(moment)]),
        ),
        // GPT on vdb, grown from 10 to 20 GiB; ext4 on its only partition, mounted.
        [`${NS}_vm1`]: guest(
          lsblkOutput({
            name: '/dev/vdb',
            type: 'disk',
            size: 20 * G,
            pttype: 'gpt',
            children: [
              {
                name: '/dev/vdb1',
                type: 'part',
                size: 20969439 * 512,
                fstype: 'ext4',
                mountpoint: '/data',
                pttype: 'gpt',
              },
            ],
          }),
          {
            'sfdisk --json /dev/vdb': sfdiskOutput(
              '/dev/vdb',
              'gpt',
              [{ number: 1, start: 2048, size: 20969439 }],
              20971486,
            ),
            'dumpe2fs -h /dev/vdb1': dumpe2fsHeader(2621179),
          },
        ),
        // vfat on the whole disk: refused.
        [`${NS}_vm2`]: guest(
          lsblkOutput({
            name: '/dev/vdb',
            type: 'disk',
            size: 20 * G,
            fstype: 'vfat',
            mountpoint: '/srv',
          }),
          {},
        ),
      },
    });
    env = { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` };
    await cluster.ensureNamespace(NS);
    await cluster.apply({
      vmis: [vmi('vm1'), vmi('vm2'), ...Object.keys(WINDOWS).map((name) => vmi(name, true))],
      vms: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          metadata: { name: 'vm2', namespace: NS },
          spec: { runStrategy: 'Always', template: { spec: { domain: { devices: {} } } } },
        },
      ],
    });
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ERRORS: Array<{ args: string[]; code: string; said: RegExp }> = [
    { args: ['vm1'], code: 'GUESTRUN_USAGE', said: /"vm1" is not a VM as NAMESPACE\/NAME/ },
    {
      args: [`${NS}/absent`],
      code: 'GUESTRUN_VM_NOT_READY',
      said: /no VirtualMachineInstance guest-grow\/absent/,
    },
    {
      args: [`${NS}/vm1`],
      code: 'GUESTRUN_DISK_NOT_FOUND',
      said: /several disks on PVCs \(rootdisk, data\): give --disk NAME/,
    },
    {
      args: [`${NS}/vm1`, '--disk', 'nope'],
      code: 'GUESTRUN_DISK_NOT_FOUND',
      said: /no disk "nope" on a PVC; its disks on PVCs: rootdisk, data/,
    },
  ];
  for (const each of ERRORS) {
    it(`${each.args.join(' ')}: ${each.code}, exit 2, nothing run in the guest`, async () => {
      const result = await voe([...each.args, '--dry-run']);
      assert.strictEqual(result.code, 2, result.stderr);
      assert.include(result.stderr, each.code);
      assert.match(result.stderr, each.said);
      assert.strictEqual(await readFile(log, 'utf8'), '');
    });
  }

  it('--dry-run prints each command as typed in the guest and why, and runs only reading commands', async () => {
    const result = await voe([`${NS}/vm1`, '--disk', 'data', '--dry-run']);
    assert.strictEqual(result.code, 0, result.stderr);
    assert.include(
      result.stdout,
      `${NS}/vm1 /dev/vdb: would run 4 command(s) in the guest, in order (nothing was run):`,
    );
    for (const line of [
      '1. sfdisk --relocate gpt-bak-std /dev/vdb',
      "2. printf '%s\\n' ', +' | sfdisk --no-reread --no-tell-kernel -N 1 /dev/vdb",
      '3. partx --update --nr 1 /dev/vdb',
      '4. resize2fs /dev/vdb1',
      "why: move the backup GPT header of /dev/vdb to the disk's new end",
    ])
      assert.include(result.stdout, line);
    const ran = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { argv: string[] }).argv[0]);
    assert.deepStrictEqual([...new Set(ran)].sort(), [
      '/bin/sh',
      'dumpe2fs',
      'getconf',
      'lsblk',
      'sfdisk',
    ]);
    const json = await voe([`${NS}/vm1`, '--disk', 'data', '--dry-run', '--json']);
    assert.deepInclude(JSON.parse(json.stdout).steps[1], {
      argv: ['sfdisk', '--no-reread', '--no-tell-kernel', '-N', '1', '/dev/vdb'],
      stdin: ', +\n',
    });
  });

  it('a refusal exits 1 with its reason and remedy, and is a GuestFilesystemNotGrown Event on the VM', async () => {
    const result = await voe([`${NS}/vm2`, '--disk', 'data']);
    assert.strictEqual(result.code, 1, result.stderr);
    assert.include(result.stdout, 'refused (GUESTGROW_UNSUPPORTED_FILESYSTEM)');
    assert.include(result.stdout, '/dev/vdb holds vfat, which voe does not grow');
    assert.include(result.stdout, 'grow it in the guest with its own tools');
    const events = cp.kubeConfig.makeApiClient(EventsV1Api);
    const list = await eventuallyValue(
      () => events.listNamespacedEvent({ namespace: NS }),
      (found) => found.items.some((e) => e.reason === 'GuestFilesystemNotGrown'),
      'the GuestFilesystemNotGrown Event',
    );
    const event = list.items.find((e) => e.reason === 'GuestFilesystemNotGrown')!;
    assert.strictEqual(event.regarding?.kind, 'VirtualMachine');
    assert.strictEqual(event.regarding?.name, 'vm2');
    assert.strictEqual(event.type, 'Warning');
    assert.include(event.note, 'GUESTGROW_UNSUPPORTED_FILESYSTEM');
  });

  /** The guest commands logged since `from` lines, each as its argv. */
  const ranSince = async (from: number): Promise<string[][]> =>
    (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .slice(from)
      .map((line) => (JSON.parse(line) as { argv: string[] }).argv);
  const logged = async (): Promise<number> =>
    (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;

  it('--dry-run on a Windows guest: its PhysicalDrive by serial, the Resize-Partition line, only PowerShell reads run', async () => {
    const from = await logged();
    const result = await voe([`${NS}/win1`, '--disk', 'data', '--dry-run']);
    assert.strictEqual(result.code, 0, result.stderr);
    assert.include(
      result.stdout,
      `${NS}/win1 \\\\.\\PhysicalDrive1: would run 1 command(s) in the guest, in order (nothing was run):`,
    );
    assert.include(result.stdout, `1. ${RESIZE_E[4]}`);
    assert.include(result.stdout, 'why: extend E: (NTFS, partition 2 of disk 1)');
    const ran = await ranSince(from);
    assert.isNotEmpty(ran);
    for (const argv of ran) {
      assert.deepStrictEqual(argv.slice(0, 4), RESIZE_E.slice(0, 4));
      assert.match(argv[4]!, /^Get-(Disk -Number|Partition -DiskNumber) 1 \| Select-Object /);
    }
    const json = await voe([`${NS}/win1`, '--disk', 'data', '--dry-run', '--json']);
    assert.deepStrictEqual(
      JSON.parse(json.stdout).steps.map((step: { argv: string[] }) => step.argv),
      [RESIZE_E],
    );
  });

  it('a Windows drive the recovery partition follows: exit 1, refused, nothing run', async () => {
    const from = await logged();
    const result = await voe([`${NS}/win2`, '--disk', 'data']);
    assert.strictEqual(result.code, 1, result.stderr);
    assert.include(result.stdout, 'refused (GUESTGROW_WINDOWS_RECOVERY_PARTITION)');
    assert.include(result.stdout, 'reagentc /disable');
    for (const argv of await ranSince(from)) assert.match(argv[4] ?? '', /^Get-(Disk|Partition) /);
  });

  it('a grown Windows drive: exit 0, nothing to grow, nothing run', async () => {
    const from = await logged();
    const result = await voe([`${NS}/win3`, '--disk', 'data']);
    assert.strictEqual(result.code, 0, result.stderr);
    assert.include(
      result.stdout,
      `${NS}/win3 \\\\.\\PhysicalDrive1: nothing to grow, everything on the disk already fills it.`,
    );
    for (const argv of await ranSince(from)) assert.match(argv[4] ?? '', /^Get-(Disk|Partition) /);
  });
});
