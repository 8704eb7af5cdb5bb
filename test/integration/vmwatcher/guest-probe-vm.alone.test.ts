/**
 * The guest probe on a real VM (docs/tracker.md "The VM lab"): libvirt domains named as KubeVirt names
 * them, running the lab guest (Debian's kernel, busybox, qemu-guest-agent) under TCG, mirrored in
 * a real kube-apiserver (VM, VMI with volumeStatus and disk serials, virt-launcher pod, bound PVCs
 * and PVs). A PVC edit goes through the API server and voe's registered webhook; test actors play
 * external-resizer, kubelet and virt-controller in KubeVirt's order, the storage grows the lab
 * volume (a raw file, or an XFS loop volume holding disk.img), and the lab's virt-handler runs
 * `virsh blockresize` to the size KubeVirt computes; the tracker sees the hypervisor and the
 * guest with `--guest-probe local` (virsh on this machine). Alone: it boots VMs on a 2-core
 * machine.
 */
import { after, describe, it } from 'mocha';
import { assert } from 'chai';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import { stageLabMirror } from '../../../src/demo/vm-lab-mirror.js';
import {
  createGuestProbe,
  Phase,
  StageReason,
  type RunningTracker,
  type VolumeExpansion,
} from '../../../src/vmwatcher/index.js';
import {
  ExpansionActors,
  startLabVm,
  startLibvirt,
  virtHandlerExpands,
  type LabVm,
} from '../../../src/demo/index.js';
import { WaitingFor } from '../../../src/vmwatcher/expansion-phase.js';
import type { ObservedSizes } from '../../../src/vmwatcher/volume-expansion.js';
import { parseQuantityCeil } from '../../../src/kube/index.js';
import { resizeThroughApi } from '../../support/webhook/resize-through-api.js';
import { serveAdmission } from '../../support/webhook/serve-admission.js';
import {
  beforeControlPlaneStops,
  testCacheDir,
  useControlPlane,
} from '../../support/use-control-plane.js';
import { TrackerLab } from '../../support/vmwatcher/tracker-lab.js';
import { eventuallyValue } from '../../support/eventually.js';

const MI = 1024n ** 2n;
const GI = 1024n ** 3n;
const NS = 'vm-lab';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const actors = new ExpansionActors(cp.kubeConfig);
const lab = new TrackerLab(cp.kubeConfig);
await serveAdmission(cp.kubeConfig, 'voe-vm-lab-test');
const libvirt = await startLibvirt();
/** Every domain is destroyed before the daemons stop (after hooks run in the order registered). */
const domains: LabVm[] = [];
after(async () => {
  for (const vm of domains.splice(0)) await vm.destroy();
  await libvirt.stop();
});

/** One lab disk and its claim, as bootVm stages it. */
interface TestDisk {
  claim: string;
  volumeName: string;
  target: string;
  bus: 'virtio' | 'scsi' | 'sata';
  device?: 'disk' | 'cdrom';
  hotplug?: boolean;
  serial?: string;
  volumeMode?: 'Block' | 'Filesystem';
}

/**
 * VM a: the agent runs; a virtio disk with a serial, a virtio disk without one, a SCSI disk with a
 * serial, a virtio disk without one whose claim is Filesystem mode (disk.img on an XFS volume), and
 * virtio-scsi without its capacity-change events (the guest must rescan a SCSI disk).
 */
const DISKS_A = [
  {
    claim: 'vm-a-disk-0-virt1',
    volumeName: 'disk-0',
    target: 'vda',
    bus: 'virtio',
    serial: 'vm-a-disk-0',
  },
  { claim: 'vm-a-disk-1-stuck', volumeName: 'disk-1', target: 'vdb', bus: 'virtio' },
  {
    claim: 'vm-a-disk-2-scsi1',
    volumeName: 'disk-2',
    target: 'sda',
    bus: 'scsi',
    serial: 'vm-a-scsi-2',
  },
  {
    claim: 'vm-a-disk-3-fsmod',
    volumeName: 'disk-3',
    target: 'vdc',
    bus: 'virtio',
    volumeMode: 'Filesystem',
  },
] as const satisfies readonly TestDisk[];

/** Every disk staged, by claim: what the storage's steps of upToTheVmi grow. */
const staged = new Map<string, { vm: LabVm; disk: TestDisk }>();

async function bootVm(
  name: string,
  disks: readonly TestDisk[],
  agent: 'on' | 'off' | 'no-exec',
  filesystemOn?: string,
  scsiChangeEvents = false,
): Promise<LabVm> {
  const vm = await startLabVm({
    cacheDir: testCacheDir(),
    namespace: NS,
    name,
    disks: disks.map((disk) => ({ ...disk, bytes: GI })),
    agent,
    scsiChangeEvents,
    ...(filesystemOn ? { filesystemOn } : {}),
  });
  domains.push(vm);
  for (const disk of disks) staged.set(disk.claim, { vm, disk });
  await stageLabMirror(cluster, {
    namespace: NS,
    name,
    disks: disks.map((disk) => ({ ...disk, size: '1Gi' })),
    agentConnected: agent !== 'off',
  });
  return vm;
}

const vmA = await bootVm('vm-a', DISKS_A, 'on');
const vmB = await bootVm(
  'vm-b',
  [
    {
      claim: 'vm-b-disk-0-noagt',
      volumeName: 'disk-0',
      target: 'vda',
      bus: 'virtio',
      serial: 'vm-b-disk-0',
    },
  ],
  'off',
);

// VM c: the agent refuses guest-exec; its disk (no serial) holds an ext2 filesystem mounted on /data.
const vmC = await bootVm(
  'vm-c',
  [{ claim: 'vm-c-disk-0-noexe', volumeName: 'disk-0', target: 'vda', bus: 'virtio' }],
  'no-exec',
  'vda',
);

/**
 * VM d: Harvester's disk layout with no serial anywhere (KubeVirt passes none unless the VMI sets
 * one): a virtio root disk, a SATA cdrom (the guest's sr0), and two SCSI disks hotplugged on the
 * virtio-scsi controller. libvirt's targets sdb and sdc are the guest's sda and sdb.
 */
const DISKS_D = [
  { claim: 'vm-d-rootdisk-hv01', volumeName: 'disk-0', target: 'vda', bus: 'virtio' },
  {
    claim: 'vm-d-cdrom-iso01',
    volumeName: 'cdrom-0',
    target: 'sda',
    bus: 'sata',
    device: 'cdrom',
  },
  {
    claim: 'vm-d-data-one01',
    volumeName: 'data-one',
    target: 'sdb',
    bus: 'scsi',
    hotplug: true,
  },
  {
    claim: 'vm-d-data-two01',
    volumeName: 'data-two',
    target: 'sdc',
    bus: 'scsi',
    hotplug: true,
  },
] as const satisfies readonly TestDisk[];
const vmD = await bootVm('vm-d', DISKS_D, 'on', undefined, true);

const tracker: RunningTracker = await lab.startTracker({
  leaseName: 'vm-lab',
  stuckAfterMs: 6_000,
  probe: createGuestProbe('local', cp.kubeConfig, { timeoutMs: 20_000 }),
  probeIntervalMs: 2_000,
});
beforeControlPlaneStops(() => tracker.stop());

/**
 * The user's edit through the API server and the webhook, then the peers in KubeVirt's order:
 * virt-controller's sync copies the new requests into the VMI at once; external-resizer starts;
 * the storage grows the volume's device; the resizer grows the PV. A Block volume (as Longhorn
 * answers node_expansion_required = false for it) is then finished by the resizer, with no node
 * step; a Filesystem volume goes to kubelet, whose NodeExpandVolume grows its filesystem. Then
 * virt-controller's sync copies the PVC's new capacity.
 */
async function upToTheVmi(vmName: string, claim: string, size: string): Promise<void> {
  const { vm, disk } = staged.get(claim)!;
  const volume = vm.volume(disk.target);
  const refusal = await resizeThroughApi(cluster, claim, size, NS);
  assert.isUndefined(refusal, `the webhook admits the resize: ${JSON.stringify(refusal)}`);
  await actors.virtControllerSyncs(NS, vmName, claim);
  await actors.resizerStarts(NS, claim, size);
  await volume.growDevice(parseQuantityCeil(size));
  await actors.resizerGrowsPv(`pvc-${NS}-${claim}`, size);
  if (volume.volumeMode === 'Block') {
    await actors.resizerFinishes(NS, claim);
  } else {
    await actors.resizerNeedsNode(NS, claim);
    await actors.kubeletStarts(NS, claim);
    await volume.growFilesystem();
    await actors.kubeletFinishes(NS, claim);
  }
  await actors.virtControllerSyncs(NS, vmName, claim);
}

/** The expansion of `claim` to 2Gi, once it shows `phase` and `reason` (within 60 s). */
function expansionIn(claim: string, phase: string, reason: string): Promise<VolumeExpansion> {
  return lab.waitForPhase(NS, `${claim}-2gi`, phase, reason, 60_000);
}

/**
 * `claim` of `vmName` resized to 2Gi up to the VMI; once the tracker waits for the hypervisor, the
 * lab's virt-handler grows the disk at `target`: that wait's status, and the bytes it resized to.
 */
async function growToHypervisor(
  vmName: string,
  vm: LabVm,
  claim: string,
  target: string,
): Promise<{ waiting: VolumeExpansion; resized: bigint }> {
  await upToTheVmi(vmName, claim, '2Gi');
  const waiting = await expansionIn(
    claim,
    Phase.HypervisorResizing,
    StageReason.WaitingForHypervisor,
  );
  const resized = await virtHandlerExpands(cp.kubeConfig, vm, {
    namespace: NS,
    vmiName: vmName,
    claimName: claim,
    target,
    size: '2Gi',
  });
  return { waiting, resized };
}

/** Each disk's size as the guest's kernel reads it, by the guest's own name (sda, vdc). */
async function guestDiskBytes(vm: LabVm, pattern: string): Promise<Record<string, bigint>> {
  const listing = await vm.guestExec('/bin/sh', [
    '-c',
    'for d in $1; do [ -e "$d/size" ] && echo "${d##*/} $(cat "$d/size")"; done',
    'sizes',
    `/sys/block/${pattern}`,
  ]);
  return Object.fromEntries(
    listing.stdout
      .trim()
      .split('\n')
      .filter((line) => line.includes(' '))
      .map((line) => {
        const [name, sectors] = line.split(' ') as [string, string];
        return [name, BigInt(sectors) * 512n];
      }),
  );
}

/**
 * One resize grown by the lab's virt-handler, and what the tracker shows for it: `before` runs
 * first and gives the hypervisor's size the wait shows (the disk's old size); `sizes` is what the
 * shown expansion's status.sizes holds (`undefined` = absent), given the bytes virt-handler
 * resized to; `then` checks the rest in the guest.
 */
interface GrowthCase {
  title: string;
  vmName: string;
  vm: () => LabVm;
  claim: string;
  target: string;
  before?: () => Promise<bigint>;
  resized?: (bytes: bigint) => void;
  phase: string;
  reason: string;
  waitingFor?: string;
  sizes: (resized: bigint) => Partial<Record<keyof ObservedSizes, string | undefined>>;
  message?: string[];
  then?: (shown: VolumeExpansion, resized: bigint) => Promise<void>;
}

const GROWTH_CASES: GrowthCase[] = [
  {
    title: "reaches Completed with the guest's measured bytes (virtio disk found by its serial)",
    vmName: 'vm-a',
    vm: () => vmA,
    claim: DISKS_A[0].claim,
    target: 'vda',
    before: () => Promise.resolve(GI),
    resized: (bytes) => assert.strictEqual(bytes, 2n * GI),
    phase: Phase.Completed,
    reason: StageReason.GuestSeesNewSize,
    sizes: () => ({
      hypervisor: String(2n * GI),
      guest: String(2n * GI),
      guestEvidence: 'BlockDevice',
      guestDevice: 'vda',
    }),
    then: async () =>
      assert.deepStrictEqual(await guestDiskBytes(vmA, 'vda'), { vda: 2n * GI }, 'the guest'),
  },
  {
    title: 'shows GuestUnverifiable with the hypervisor size when the guest has no agent',
    vmName: 'vm-b',
    vm: () => vmB,
    claim: 'vm-b-disk-0-noagt',
    target: 'vda',
    phase: Phase.Stuck,
    reason: StageReason.GuestUnverifiable,
    waitingFor: WaitingFor.User,
    sizes: () => ({ hypervisor: String(2n * GI), guest: undefined }),
    message: ['qemu-guest-agent'],
  },
  {
    title:
      "falls back to the guest's filesystem when the guest refuses guest-exec, and waits until it holds more than the old size",
    vmName: 'vm-c',
    vm: () => vmC,
    claim: 'vm-c-disk-0-noexe',
    target: 'vda',
    phase: Phase.GuestVerifying,
    reason: StageReason.WaitingForGuest,
    sizes: () => ({
      hypervisor: String(2n * GI),
      guestEvidence: 'Filesystem',
      guestDevice: '/data',
    }),
    message: ['guest-exec refused', 'grow the partition and filesystem in the guest'],
    // The ext2 filesystem made on the 1Gi disk: less than the old size (the guest has not grown it).
    then: (shown) => {
      assert.isBelow(Number(shown.status?.sizes?.guest), Number(GI));
      assert.isAbove(Number(shown.status?.sizes?.guest), Number(GI) / 2);
      return Promise.resolve();
    },
  },
  {
    title:
      'reaches Completed for a Filesystem-mode disk.img grown as KubeVirt grows it, below (1 - overhead) x capacity',
    vmName: 'vm-a',
    vm: () => vmA,
    claim: DISKS_A[3].claim,
    target: 'vdc',
    before: async () => (await guestDiskBytes(vmA, 'vdc')).vdc!,
    // The XFS volume keeps its metadata: less is usable than the capacity, so disk.img ends below
    // the 1935 MiB of align_down_1MiB(0.945 x 2Gi), yet well above the old 1Gi volume's disk.img.
    resized: (bytes) => {
      assert.isBelow(Number(bytes), Number(1935n * MI));
      assert.isAbove(Number(bytes), Number(GI));
    },
    phase: Phase.Completed,
    reason: StageReason.GuestSeesNewSize,
    sizes: (resized) => ({
      hypervisor: String(resized),
      guest: String(resized),
      guestDevice: 'vdc',
    }),
    then: async (_shown, resized) =>
      assert.deepStrictEqual(await guestDiskBytes(vmA, 'vdc'), { vdc: resized }, 'the guest'),
  },
  {
    title:
      "completes the hotplugged SCSI disk that grew, by its address, with that disk's guest bytes while the other keeps its size (no serials)",
    vmName: 'vm-d',
    vm: () => vmD,
    claim: DISKS_D[2].claim,
    // libvirt's sdb is the guest's sda: found by its SCSI address, not by its target name.
    target: 'sdb',
    before: async () => {
      // The guest's names for the hotplugged disks, in the order it found them: target sdb, then sdc.
      const seen = await eventuallyValue(
        () => guestDiskBytes(vmD, 'sd*'),
        (found) => Object.keys(found).length >= 2,
        'the guest lists both hotplugged disks',
        10_000,
      );
      assert.deepStrictEqual(seen, { sda: GI, sdb: GI }, 'the guest sees both hotplugged disks');
      const blocks = await vmD.guestExec('/bin/ls', ['/sys/block']);
      assert.include(blocks.stdout.split(/\s+/), 'sr0', "the SATA cdrom is the guest's sr0");
      return GI;
    },
    resized: (bytes) => assert.strictEqual(bytes, 2n * GI),
    phase: Phase.Completed,
    reason: StageReason.GuestSeesNewSize,
    sizes: () => ({ hypervisor: String(2n * GI), guest: String(2n * GI), guestDevice: 'sda' }),
    then: async () =>
      assert.deepStrictEqual(await guestDiskBytes(vmD, 'sd*'), { sda: 2n * GI, sdb: GI }),
  },
];

describe('the guest probe on a real VM', () => {
  describe('once the hypervisor has grown the disk', () => {
    for (const c of GROWTH_CASES) {
      it(c.title, async () => {
        const before = await c.before?.();
        const { waiting, resized } = await growToHypervisor(c.vmName, c.vm(), c.claim, c.target);
        if (before !== undefined) {
          assert.strictEqual(waiting.status?.sizes?.hypervisor, String(before), 'before');
        }
        c.resized?.(resized);
        const shown = await expansionIn(c.claim, c.phase, c.reason);
        if (c.waitingFor !== undefined) assert.strictEqual(shown.status?.waitingFor, c.waitingFor);
        for (const [field, value] of Object.entries(c.sizes(resized))) {
          assert.strictEqual(
            shown.status?.sizes?.[field as keyof ObservedSizes],
            value,
            `sizes.${field}`,
          );
        }
        for (const text of c.message ?? []) assert.include(shown.status?.message, text);
        await c.then?.(shown, resized);
      });
    }
  });

  it('is Stuck waiting for virt-handler when the hypervisor stays below past --stuck-after (disk found by bus and target)', async () => {
    const claim = DISKS_A[1].claim;
    await upToTheVmi('vm-a', claim, '2Gi');
    const stuck = await expansionIn(claim, Phase.Stuck, StageReason.NoProgress);
    assert.strictEqual(stuck.status?.waitingFor, WaitingFor.VirtHandler);
    assert.match(stuck.status?.message ?? '', /in HypervisorResizing, waiting for virt-handler/);
    assert.strictEqual(stuck.status?.sizes?.hypervisor, String(GI));
    assert.strictEqual(stuck.status?.sizes?.guest, String(GI));
    assert.strictEqual(stuck.status?.sizes?.guestDevice, 'vdb');
  });

  it('waits in GuestVerifying for a SCSI disk (found by its VPD serial) whose guest needs a rescan, and completes once the guest rescans', async () => {
    const claim = DISKS_A[2].claim;
    await growToHypervisor('vm-a', vmA, claim, 'sda');
    const verifying = await expansionIn(claim, Phase.GuestVerifying, StageReason.WaitingForGuest);
    assert.strictEqual(verifying.status?.waitingFor, WaitingFor.Guest);
    assert.strictEqual(verifying.status?.sizes?.hypervisor, String(2n * GI));
    assert.strictEqual(verifying.status?.sizes?.guest, String(GI));
    const device = verifying.status?.sizes?.guestDevice ?? '';
    assert.match(device, /^sd[a-z]$/);
    // What the message of NoProgress advises, done in the guest (the path as a positional parameter, not in the script).
    const rescan = await vmA.guestExec('/bin/sh', [
      '-c',
      'echo 1 > "$1"',
      'rescan',
      `/sys/block/${device}/device/rescan`,
    ]);
    assert.strictEqual(rescan.exitCode, 0, rescan.stderr);
    const done = await expansionIn(claim, Phase.Completed, StageReason.GuestSeesNewSize);
    assert.strictEqual(done.status?.sizes?.guest, String(2n * GI));
    assert.strictEqual(done.status?.sizes?.guestDevice, device);
  });
});
