/**
 * The tracker's life on a real kube-apiserver: restarted mid-expansion, two replicas with one
 * leader, no progress for --stuck-after, a guest probe to Completed, and bad input that is marked
 * and logged while the tracker keeps going.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import {
  Phase,
  StageReason,
  VOLUME_EXPANSIONS,
  type GuestProbe,
  type RunningTracker,
} from '../../../src/vmwatcher/index.js';
import { WaitingFor } from '../../../src/vmwatcher/expansion-phase.js';
import { captureLogger } from '../../support/capture-logger.js';
import { onCleanup } from '../../support/cleanup.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventuallyValue } from '../../support/eventually.js';
import { metricsText, TrackerLab } from '../../support/vmwatcher/tracker-lab.js';

const cp = await useControlPlane();
const lab = new TrackerLab(cp.kubeConfig);
const { actors, cluster } = lab;
await lab.stageCluster();

/** A tracker stopped after the test. */
async function tracker(
  overrides: Parameters<TrackerLab['startTracker']>[0] = {},
): Promise<RunningTracker> {
  const started = await lab.startTracker(overrides);
  onCleanup(() => started.stop());
  return started;
}

/** A VM whose disk grew up to NodeResizePending. */
async function upToNodeResizePending(ns: string, vmName: string, claim: string): Promise<void> {
  await lab.stageVm(ns, vmName, [{ claim }]);
  await cluster.resizeClaim(ns, claim, '20Gi');
  await actors.resizerStarts(ns, claim, '20Gi');
  await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
  await actors.resizerNeedsNode(ns, claim);
}

describe('the expansion tracker across restarts, replicas and bad input', () => {
  it('resumes after a restart mid-expansion: same object, phase timestamps kept, no repeated Events', async () => {
    const ns = 'restart';
    const claim = 'vm1-disk-0-rst01';
    const name = `${claim}-20gi`;
    const first = await tracker({ leaseName: 'restart' });
    await upToNodeResizePending(ns, 'vm1', claim);
    const before = await lab.waitForPhase(ns, name, Phase.NodeResizePending);
    await eventuallyValue(
      async () => (await lab.events(ns, claim)).map((e) => e.reason),
      (r) => r.includes('ExpansionNodeResizePending'),
      'the Event of NodeResizePending',
    );
    await first.stop();
    // While no tracker runs, kubelet finishes.
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    await tracker({ leaseName: 'restart' });
    const after = await lab.waitForPhase(ns, name, Phase.VMUpdating);
    assert.strictEqual(after.metadata?.uid, before.metadata?.uid);
    assert.strictEqual(
      after.status?.phaseTimestamps?.ControllerResizing,
      before.status?.phaseTimestamps?.ControllerResizing,
    );
    assert.strictEqual(
      after.status?.phaseTimestamps?.NodeResizePending,
      before.status?.phaseTimestamps?.NodeResizePending,
    );
    assert.lengthOf(await lab.expansions(ns), 1);
    await eventuallyValue(
      async () => (await lab.events(ns, claim)).map((e) => e.reason),
      (r) => r.includes('ExpansionVMUpdating'),
      'the Event of VMUpdating',
    );
    const reasons = (await lab.events(ns, claim)).map((e) => e.reason);
    assert.lengthOf(
      reasons.filter((r) => r === 'ExpansionNodeResizePending'),
      1,
      `one Event per phase: ${reasons.join(', ')}`,
    );
  });

  it('with two replicas, only the leader writes; the other takes over when it stops', async () => {
    const ns = 'two-replicas';
    const claim = 'vm2-disk-0-two01';
    const name = `${claim}-20gi`;
    const a = await tracker({ leaseName: 'two', identity: 'replica-a' });
    await eventuallyValue(async () => a.isLeader(), Boolean, 'a leads');
    const b = await tracker({ leaseName: 'two', identity: 'replica-b' });
    await eventuallyValue(async () => b.caches.ready(), Boolean, 'b synced');
    await upToNodeResizePending(ns, 'vm2', claim);
    await lab.waitForPhase(ns, name, Phase.NodeResizePending);
    assert.isFalse(b.isLeader());
    assert.match(await metricsText(a), /voe_tracker_status_writes_total\{result="written"\} [1-9]/);
    assert.match(await metricsText(a), /^voe_tracker_status_write_duration_seconds_count [1-9]/m);
    assert.match(await metricsText(a), /^voe_tracker_queue_wait_seconds_count [1-9]/m);
    assert.match(await metricsText(b), /^voe_tracker_queue_wait_seconds_count 0$/m);
    assert.notMatch(await metricsText(b), /voe_tracker_status_writes_total\{result="written"\}/);
    assert.match(await metricsText(b), /voe_tracker_leader 0/);
    await a.stop();
    await eventuallyValue(async () => b.isLeader(), Boolean, 'b leads once a released the lease');
    await actors.kubeletStarts(ns, claim);
    await lab.waitForPhase(ns, name, Phase.NodeResizing);
    assert.match(await metricsText(b), /voe_tracker_status_writes_total\{result="written"\} [1-9]/);
    assert.lengthOf(await lab.expansions(ns), 1);
  });

  it('marks a phase without progress for --stuck-after as Stuck, naming the actor, and goes on when it moves', async () => {
    const ns = 'no-progress';
    const claim = 'vm3-disk-0-slow1';
    const name = `${claim}-20gi`;
    await tracker({ leaseName: 'no-progress', stuckAfterMs: 1_500 });
    await lab.stageVm(ns, 'vm3', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    const stuck = await lab.waitForPhase(ns, name, Phase.Stuck, StageReason.NoProgress);
    assert.strictEqual(stuck.status?.waitingFor, WaitingFor.ExternalResizer);
    assert.match(
      stuck.status?.message ?? '',
      /No progress for \ds in ControllerResizing, waiting for external-resizer/,
    );
    await eventuallyValue(
      async () => (await lab.events(ns, claim)).find((e) => e.reason === 'ExpansionStuck'),
      (event) => event?.type === 'Warning',
      'a Warning Event',
    );
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    await lab.waitForPhase(ns, name, Phase.NodeResizePending);
  });

  it('goes through GuestVerifying to Completed with a guest probe', async () => {
    const ns = 'probed';
    const claim = 'vm4-disk-0-prb01';
    const name = `${claim}-20gi`;
    const sizes = { hypervisorBytes: 10n * 1024n ** 3n, guestBytes: 10n * 1024n ** 3n };
    const probe: GuestProbe = { read: async () => ({ ...sizes }) };
    const running = await tracker({ leaseName: 'probed', probe, probeIntervalMs: 200 });
    await upToNodeResizePending(ns, 'vm4', claim);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    await actors.virtControllerSyncs(ns, 'vm4', claim);
    await lab.waitForPhase(ns, name, Phase.HypervisorResizing, StageReason.WaitingForHypervisor);
    sizes.hypervisorBytes = 20n * 1024n ** 3n;
    // Read again every probeIntervalMs.
    await lab.waitForPhase(ns, name, Phase.GuestVerifying);
    sizes.guestBytes = 20n * 1024n ** 3n;
    const done = await lab.waitForPhase(ns, name, Phase.Completed, StageReason.GuestSeesNewSize);
    assert.strictEqual(done.status?.sizes?.guest, String(20n * 1024n ** 3n));
    const metrics = await metricsText(running);
    assert.match(metrics, /voe_expansions_total\{outcome="Completed"\} 1/);
    assert.match(metrics, /voe_expansion_duration_seconds_count\{outcome="Completed"\} 1/);
  });

  it('marks and logs bad input and keeps going: malformed quantities, a hand-edited VolumeExpansion, an annotation that is not JSON', async () => {
    const ns = 'bad-input';
    const claim = 'vm5-disk-0-bad01';
    const name = `${claim}-20gi`;
    const logs = captureLogger('info');
    await tracker({ leaseName: 'bad-input', logger: logs.logger });
    await upToNodeResizePending(ns, 'vm5', claim);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    // A VMI whose PVC info is no quantity (its CRD keeps any JSON there).
    await actors.virtControllerCopies(ns, 'vm5', claim, { capacity: 'ten gigs', requests: '20Gi' });
    const malformed = await lab.waitForPhase(ns, name, Phase.Stuck, StageReason.MalformedQuantity);
    assert.include(malformed.status?.message, '"ten gigs"');
    assert.strictEqual(malformed.status?.waitingFor, WaitingFor.VirtController);
    await eventuallyValue(
      async () =>
        logs.lines().find((l) => l['msg'] === 'malformed input; marked on the VolumeExpansion'),
      (line) => line !== undefined && String(line['problems']).includes('ten gigs'),
      'a log line',
    );
    await actors.virtControllerSyncs(ns, 'vm5', claim);
    await lab.waitForPhase(ns, name, Phase.HypervisorResizing, StageReason.NoGuestProbe);

    // A VolumeExpansion edited by hand: marked; deleted, it comes back for the current request.
    const second = 'vm5-disk-1-bad02';
    await lab.stageVm('bad-input-2', 'vm5b', [{ claim: second }]);
    await cluster.resizeClaim('bad-input-2', second, '30Gi');
    const original = await lab.waitForPhase(
      'bad-input-2',
      `${second}-30gi`,
      Phase.ControllerResizing,
    );
    await requestJson(cp.kubeConfig, {
      method: 'PATCH',
      path: resourcePath({
        ...VOLUME_EXPANSIONS,
        namespace: 'bad-input-2',
        name: `${second}-30gi`,
      }),
      contentType: 'application/merge-patch+json',
      body: { spec: { to: 'thirty gigs' } },
    });
    const edited = await lab.waitForPhase(
      'bad-input-2',
      `${second}-30gi`,
      Phase.Stuck,
      StageReason.InvalidVolumeExpansion,
    );
    assert.include(edited.status?.message, 'changed by hand');
    assert.lengthOf(await lab.expansions('bad-input-2'), 1);
    await requestJson(cp.kubeConfig, {
      method: 'DELETE',
      path: resourcePath({
        ...VOLUME_EXPANSIONS,
        namespace: 'bad-input-2',
        name: `${second}-30gi`,
      }),
    });
    const recreated = await eventuallyValue(
      () => lab.expansion('bad-input-2', `${second}-30gi`),
      (e) =>
        e.metadata?.uid !== original.metadata?.uid && e.status?.phase === Phase.ControllerResizing,
      'recreated for the request',
    );
    assert.strictEqual(recreated.spec?.to, '30Gi');

    // A VM whose volumeClaimTemplates annotation is not JSON: a Warning Event on it and a log line.
    const third = 'vm5c-disk-0-bad03';
    await lab.stageVm('bad-input-3', 'vm5c', [{ claim: third }], {
      annotations: {
        'harvesterhci.io/volumeClaimTemplates': '[{"metadata": {"name": "vm5c-disk-0',
      },
    });
    const event = await eventuallyValue(
      async () =>
        (await lab.events('bad-input-3', 'vm5c')).find(
          (e) => e.reason === 'InvalidVolumeClaimTemplates',
        ),
      (e) => e !== undefined,
      'the Event on the VM',
    );
    assert.strictEqual(event?.type, 'Warning');
    assert.include(event?.note, 'not valid JSON');
    assert.isDefined(
      logs
        .lines()
        .find((l) => String(l['msg']).includes('annotation of VM bad-input-3/vm5c cannot be read')),
    );
    // Its volumes still name the disk: its expansion is followed.
    await cluster.resizeClaim('bad-input-3', third, '20Gi');
    await lab.waitForPhase('bad-input-3', `${third}-20gi`, Phase.ControllerResizing);
    // And the rest of the cluster still moves.
    await actors.resizerStarts('bad-input-2', second, '30Gi');
    await lab.waitForPhase(
      'bad-input-2',
      `${second}-30gi`,
      Phase.ControllerResizing,
      StageReason.ControllerResizeInProgress,
    );
  });
});
