/**
 * `voe guest grow` against a real kube-apiserver holding the VMIs, with `--guest-probe local` and
 * a fake virsh on PATH whose guest agent answers as QEMU's does: argument errors, --dry-run
 * printing each command and why with nothing run in the guest, and a refusal recorded as a
 * GuestFilesystemNotGrown Event on the VM.
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
import { dumpe2fsHeader, lsblkJson, sfdiskJson } from '../../support/guest-grow/guest-outputs.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const NS = 'guest-grow';
const G = 1024 ** 3;
const URI = 'qemu:///system';
const LSBLK =
  'lsblk --json --bytes --paths --output NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE';

function vmi(name: string) {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: NS },
    spec: {
      domain: {
        devices: {
          disks: [
            { name: 'rootdisk', disk: { bus: 'virtio' } },
            { name: 'data', disk: { bus: 'virtio' }, serial: 'voe-data' },
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
      volumeStatus: [
        { name: 'rootdisk', target: 'vda' },
        { name: 'data', target: 'vdb' },
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
    const bin = await installFakeAgentVirsh(join(dir, 'bin'), {
      uri: URI,
      domains: { [`${NS}_vm1`]: domain, [`${NS}_vm2`]: domain },
      log,
      guests: {
        // GPT on vdb, grown from 10 to 20 GiB; ext4 on its only partition, mounted.
        [`${NS}_vm1`]: guest(
          lsblkJson({
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
            'sfdisk --json /dev/vdb': sfdiskJson({
              device: '/dev/vdb',
              label: 'gpt',
              lastLba: 20971486,
              partitions: [{ number: 1, start: 2048, size: 20969439 }],
            }),
            'dumpe2fs -h /dev/vdb1': dumpe2fsHeader(2621179),
          },
        ),
        // vfat on the whole disk: refused.
        [`${NS}_vm2`]: guest(
          lsblkJson({
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
      vmis: [vmi('vm1'), vmi('vm2')],
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
});
