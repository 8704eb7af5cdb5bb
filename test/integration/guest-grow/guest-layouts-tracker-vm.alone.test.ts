/**
 * Guest growth through the tracker on a real VM (docs/guest-growth.md "In the tracker"): one lab
 * domain (the lab guest under TCG, with its own growth tools) with one virtio disk per layout,
 * each with its serial, mirrored in a real kube-apiserver (VM opted in with
 * storage.voe.dev/grow-guest-filesystem, VMI, virt-launcher pod, bound PVCs). Each layout is built
 * in the guest and holds a file of random data; the PVC edit goes through the API server and voe's
 * webhook, test actors play external-resizer, kubelet and virt-controller, the lab's virt-handler
 * runs `virsh blockresize` (the demo's plays, followPlays), and the tracker, as `voe watch
 * --guest-probe local --guest-filesystem-growth` runs it, passes GuestFilesystemGrowing and ends
 * Completed: GuestFilesystemGrown with the sizes the guest agent reports, or GuestFilesystemNotGrown
 * with the refusal's remedy. The data's checksum is unchanged. Alone: it boots a VM.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import { stageLabMirror } from '../../../src/demo/vm-lab-mirror.js';
import { followPlays } from '../../../src/demo/follow-expansions.js';
import { playsFor, type Play } from '../../../src/demo/expansion-plays.js';
import { ExpansionActors, startLabVm, startLibvirt, type LabVm } from '../../../src/demo/index.js';
import { GROW_GUEST_FILESYSTEM_ANNOTATION } from '../../../src/model/index.js';
import {
  agentFilesystemGrower,
  createGuestProbe,
  Phase,
  StageReason,
  virshAgentOf,
  virshTransportOf,
  type RunningTracker,
} from '../../../src/vmwatcher/index.js';
import { readFilesystemTotalBytes } from '../../../src/guest-grow/index.js';
import { resizeThroughApi } from '../../support/webhook/resize-through-api.js';
import { serveAdmission } from '../../support/webhook/serve-admission.js';
import {
  beforeControlPlaneStops,
  testCacheDir,
  useControlPlane,
} from '../../support/use-control-plane.js';
import { TrackerLab } from '../../support/vmwatcher/tracker-lab.js';
import { eventuallyValue } from '../../support/eventually.js';
import {
  buildLabLayout,
  type LabFilesystem,
  type LabLayout,
  type LabLayoutKind,
} from '../../support/guest-grow/lab-layouts.js';
import {
  labGuestBlockAttribute,
  labGuestOutput,
} from '../../support/guest-grow/lab-guest-commands.js';
import { labStatfsBytes } from '../../support/guest-grow/lab-statfs.js';
import { labGuestAgent } from '../../support/guest-grow/grow-lab-layout.js';

const GI = 1024 ** 3;
const NS = 'guest-grow-tracker';
const VM = 'layouts';

interface TrackerLayoutCase {
  name: string;
  kind: LabLayoutKind;
  filesystem: LabFilesystem;
  /** The refusal's code instead of a growth. */
  refused?: string;
}

const CASES: readonly TrackerLayoutCase[] = [
  { name: 'GPT, ext4 on the last partition', kind: 'gpt', filesystem: 'ext4' },
  { name: 'MBR, xfs on the last partition', kind: 'mbr', filesystem: 'xfs' },
  { name: 'LVM, ext4 on the only LV of a PV on a GPT partition', kind: 'lvm', filesystem: 'ext4' },
  { name: 'unpartitioned btrfs', kind: 'unpartitioned', filesystem: 'btrfs' },
  {
    name: 'ext4 on a partition another one follows',
    kind: 'not-last',
    filesystem: 'ext4',
    refused: 'GUESTGROW_NOT_LAST_PARTITION',
  },
];

/** One virtio disk per case: libvirt's target, its serial, its claim and VMI volume. */
const DISKS = CASES.map((_, index) => {
  const letter = String.fromCharCode('a'.charCodeAt(0) + index);
  return {
    target: `vd${letter}`,
    bus: 'virtio' as const,
    serial: `layout-${letter}`,
    claim: `layouts-disk-${index}-grow1`,
    volumeName: `disk-${index}`,
  };
});

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
const lab = new TrackerLab(cp.kubeConfig);
await serveAdmission(cp.kubeConfig, 'voe-guest-layouts-test');
const libvirt = await startLibvirt();
let vm: LabVm | undefined;
after(async () => {
  await vm?.destroy();
  await libvirt.stop();
});

/** The guest's /dev/vdX of each serial, once the guest lists every disk. */
async function guestDisksBySerial(lab: LabVm): Promise<Map<string, string>> {
  return eventuallyValue(
    async () =>
      new Map(
        (await labGuestBlockAttribute(lab, 'vd', 'serial')).map(
          ([name, serial]) => [serial, `/dev/${name}`] as const,
        ),
      ),
    (found) => found.size >= DISKS.length,
    'the guest lists every disk',
    30_000,
  );
}

/** The demo's plays of an opted-in VM; a refused layout ends GuestFilesystemNotGrown. */
function playsOf(layoutCase: TrackerLayoutCase): Play[] {
  const plays = [...playsFor({ running: true, guest: true, growth: true })];
  if (layoutCase.refused)
    plays[plays.length - 1] = {
      ...plays.at(-1)!,
      action: "finds the guest's layout refused and leaves it as it is",
      expect: { phase: Phase.Completed, reason: StageReason.GuestFilesystemNotGrown },
    };
  return plays;
}

describe('guest growth through the tracker on a real VM: the five layouts', function () {
  let tracker: RunningTracker | undefined;
  let bySerial = new Map<string, string>();
  before(async function () {
    vm = await startLabVm({
      cacheDir: testCacheDir(),
      namespace: NS,
      name: VM,
      disks: DISKS.map((disk) => ({ ...disk, bytes: BigInt(GI) })),
    });
    await stageLabMirror(cluster, {
      namespace: NS,
      name: VM,
      disks: DISKS.map((disk) => ({ ...disk, size: '1Gi' })),
      agentConnected: true,
      vmAnnotations: { [GROW_GUEST_FILESYSTEM_ANNOTATION]: 'true' },
    });
    bySerial = await guestDisksBySerial(vm);
    tracker = await lab.startTracker({
      leaseName: 'guest-layouts',
      probe: createGuestProbe('local', cp.kubeConfig, { timeoutMs: 20_000 }),
      probeIntervalMs: 2_000,
      grower: agentFilesystemGrower(virshAgentOf(virshTransportOf('local', cp.kubeConfig))),
      guestFilesystemGrowth: true,
    });
    beforeControlPlaneStops(() => tracker!.stop());
  });

  CASES.forEach((layoutCase, index) =>
    it(`${layoutCase.name}: ${layoutCase.refused ? 'GuestFilesystemNotGrown, with the remedy' : 'GuestFilesystemGrown, the sizes the guest agent reports'}`, async function () {
      const labVm = vm!;
      const disk = DISKS[index]!;
      const device = bySerial.get(disk.serial)!;
      const layout: LabLayout = await buildLabLayout(
        labVm,
        layoutCase.kind,
        layoutCase.filesystem,
        device,
      );
      const statfsBefore = await labStatfsBytes(labVm, layout.mountPoint);
      const refusal = await resizeThroughApi(cluster, disk.claim, '2Gi', NS);
      assert.isUndefined(refusal, `the webhook admits the resize: ${JSON.stringify(refusal)}`);
      const result = await followPlays(
        { kubeConfig: cp.kubeConfig, resizes: [], timeoutMs: 120_000 },
        new ExpansionActors(cp.kubeConfig),
        { namespace: NS, claim: disk.claim, from: '1Gi', to: '2Gi' },
        playsOf(layoutCase),
        VM,
        { lab: { vm: labVm, target: disk.target }, pvName: `pvc-${NS}-${disk.claim}` },
      );
      assert.isTrue(result.ok, result.mismatch);
      const phases = result.timeline.map((entry) => `${entry.phase} (${entry.reason})`);
      assert.include(phases, 'GuestFilesystemGrowing (GrowingGuestFilesystem)');
      const last = result.timeline.at(-1)!;
      if (layoutCase.refused) {
        assert.strictEqual(last.guestFilesystem?.result, 'Refused');
        assert.include(last.message, layoutCase.refused);
        assert.match(last.message, /move or remove \/dev\/vd[a-z]2 \(offline/i);
        assert.strictEqual(await labStatfsBytes(labVm, layout.mountPoint), statfsBefore);
      } else {
        const grown = last.guestFilesystem!;
        assert.strictEqual(grown.result, 'Grown', last.message);
        assert.strictEqual(grown.mountPoint, layout.mountPoint);
        // The sizes recorded are the agent's guest-get-fsinfo total-bytes, before and now.
        const now = await readFilesystemTotalBytes(labGuestAgent(labVm), layout.mountPoint, 20_000);
        assert.strictEqual(grown.afterBytes, String(now));
        assert.isAbove(Number(grown.afterBytes) - Number(grown.beforeBytes), GI * 0.9);
        const statfsAfter = await labStatfsBytes(labVm, layout.mountPoint);
        assert.isAbove(
          statfsAfter - statfsBefore,
          GI * 0.9,
          `statfs ${statfsBefore} -> ${statfsAfter}`,
        );
      }
      assert.strictEqual(
        (await labGuestOutput(labVm, { argv: ['md5sum', layout.dataFile] })).trim(),
        layout.checksum,
        'the data is intact',
      );
    }),
  );
});
