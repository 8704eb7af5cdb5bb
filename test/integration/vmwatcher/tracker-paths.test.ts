/**
 * The tracker on a real kube-apiserver, following expansions stage by stage while the test actors
 * write exactly what external-resizer, kubelet, virt-controller and virt-handler write.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { Phase, StageReason, type RunningTracker } from '../../../src/vmwatcher/index.js';
import { WaitingFor } from '../../../src/vmwatcher/expansion-phase.js';
import { EVENTS_BY_PVC } from '../../../src/vmwatcher/tracker-caches.js';
import { Informer, keyOf, requestJson, resourcePath } from '../../../src/kube/index.js';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { PersistentVolumeClaim, VirtualMachineInstance } from '../../../src/model/index.js';
import { ExpansionActors } from '../../../src/demo/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventuallyValue } from '../../support/eventually.js';
import { metricsText, TrackerLab } from '../../support/vmwatcher/tracker-lab.js';

const cp = await useControlPlane();
const lab = new TrackerLab(cp.kubeConfig);
const { actors, cluster } = lab;
/** The phases an expansion with a node step passes on its way to the guest probe. */
const NODE_PATH_PHASES = [
  'ControllerResizing',
  'HypervisorResizing',
  'NodeResizePending',
  'NodeResizing',
  'VMUpdating',
];

describe('the expansion tracker on a real kube-apiserver', () => {
  let tracker: RunningTracker;

  before(async () => {
    await lab.stageCluster();
    tracker = await lab.startTracker();
    await eventuallyValue(async () => tracker.isLeader(), Boolean, 'the tracker leads');
  });

  after(async () => {
    await tracker?.stop();
  });

  it('follows the Block path up to the guest probe, with Events on the PVC and the VM', async () => {
    const ns = 'block-path';
    const claim = 'vm1-disk-0-kq8zt';
    const pv = `pvc-${ns}-${claim}`;
    await lab.stageVm(ns, 'vm1', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    // virt-controller's sync follows the edit at once: the VMI's requests, not yet its capacity.
    await actors.virtControllerSyncs(ns, 'vm1', claim);
    const name = `${claim}-20gi`;
    const waiting = await lab.waitForPhase(
      ns,
      name,
      Phase.ControllerResizing,
      StageReason.WaitingForResizer,
    );
    assert.deepStrictEqual(waiting.spec, {
      pvcName: claim,
      vmName: 'vm1',
      from: '10Gi',
      to: '20Gi',
    });
    assert.strictEqual(waiting.status?.waitingFor, WaitingFor.ExternalResizer);
    assert.deepInclude(waiting.metadata?.ownerReferences?.[0], {
      kind: 'PersistentVolumeClaim',
      name: claim,
      controller: true,
    });

    await actors.resizerStarts(ns, claim, '20Gi');
    await lab.waitForPhase(
      ns,
      name,
      Phase.ControllerResizing,
      StageReason.ControllerResizeInProgress,
    );
    await actors.resizerGrowsPv(pv, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    const pending = await lab.waitForPhase(ns, name, Phase.NodeResizePending);
    assert.strictEqual(pending.status?.waitingFor, WaitingFor.Kubelet);
    assert.strictEqual(pending.status?.pods?.launcher, 'virt-launcher-vm1-x7k2p');
    await actors.kubeletStarts(ns, claim);
    await lab.waitForPhase(ns, name, Phase.NodeResizing);
    await actors.kubeletFinishes(ns, claim);
    const updating = await lab.waitForPhase(ns, name, Phase.VMUpdating);
    assert.strictEqual(updating.status?.waitingFor, WaitingFor.VirtController);
    assert.strictEqual(updating.status?.sizes?.pvcCapacity, '20Gi');
    assert.strictEqual(updating.status?.sizes?.vmiCapacity, '10Gi');
    assert.strictEqual(updating.status?.sizes?.vmiRequests, '20Gi');
    await actors.virtControllerSyncs(ns, 'vm1', claim);
    const done = await lab.waitForPhase(
      ns,
      name,
      Phase.HypervisorResizing,
      StageReason.NoGuestProbe,
    );
    assert.strictEqual(done.status?.waitingFor, WaitingFor.VirtHandler);
    assert.include(done.status?.message, 'No guest probe is configured');
    assert.deepStrictEqual(
      Object.keys(done.status?.phaseTimestamps ?? {}).sort(),
      NODE_PATH_PHASES,
    );
    assert.deepInclude(done.status?.sizes, {
      request: '20Gi',
      pv: '20Gi',
      pvcCapacity: '20Gi',
      vmiCapacity: '20Gi',
      vmiRequests: '20Gi',
      expected: String(20n * 1024n ** 3n),
    });
    // Exactly one object for the request, and its spec as created.
    assert.lengthOf(await lab.expansions(ns), 1);

    const reasons = async (object: string) =>
      (await lab.events(ns, object)).map((event) => event.reason).sort();
    const expected = [
      'ExpansionControllerResizing',
      'ExpansionHypervisorResizing',
      'ExpansionNodeResizePending',
      'ExpansionNodeResizing',
      'ExpansionVMUpdating',
    ];
    await eventuallyValue(
      () => reasons(claim),
      (r) => expected.every((e) => r.includes(e)),
      'PVC events',
    );
    await eventuallyValue(
      () => reasons('vm1'),
      (r) => expected.every((e) => r.includes(e)),
      'VM events',
    );
    // external-resizer's Events about the PVC are watched (the driver's account of a resize);
    // the tracker's own are not sent to it.
    await requestJson(cp.kubeConfig, {
      method: 'POST',
      path: resourcePath({ group: '', version: 'v1', plural: 'events', namespace: ns }),
      body: {
        metadata: { name: `${claim}.resizer` },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace: ns,
          name: claim,
        },
        type: 'Normal',
        reason: 'Resizing',
        message: `External resizer is resizing volume ${pv}`,
        source: { component: 'external-resizer driver.longhorn.io' },
      },
    });
    const watched = await eventuallyValue(
      async () =>
        tracker.caches.caches.claimEvents
          .byIndex(EVENTS_BY_PVC, keyOf(ns, claim))
          .map((event) => event.reason),
      (r) => r.includes('Resizing'),
      "external-resizer's Event watched",
    );
    assert.deepStrictEqual(watched, ['Resizing']);
    const metrics = await metricsText(tracker);
    assert.match(
      metrics,
      /voe_expansion_phase_duration_seconds_count\{phase="NodeResizing"\} [1-9]/,
    );
    assert.match(metrics, /voe_expansions\{phase="HypervisorResizing"\} [1-9]/);
  });

  it('follows the same path when external-resizer and virt-controller read their informers', async () => {
    const ns = 'informer-peers';
    const claim = 'vm7-disk-0-inf01';
    await lab.stageVm(ns, 'vm7', [{ claim }]);
    const pvcs = new Informer<PersistentVolumeClaim & KubernetesObject>({
      kubeConfig: cp.kubeConfig,
      resource: { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
    });
    const vmis = new Informer<VirtualMachineInstance & KubernetesObject>({
      kubeConfig: cp.kubeConfig,
      resource: { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' },
    });
    await Promise.all([pvcs.start(), vmis.start()]);
    try {
      const peers = new ExpansionActors(cp.kubeConfig, {
        pvc: (namespace, name) => pvcs.get(namespace, name),
        vmi: (namespace, name) => vmis.get(namespace, name),
      });
      // virt-controller's VMI sync runs on its informer's news of the PVC.
      const informerHolds = (want: (pvc: PersistentVolumeClaim) => boolean, what: string) =>
        eventuallyValue(
          async () => pvcs.get(ns, claim),
          (p) => p !== undefined && want(p),
          what,
        );
      await cluster.resizeClaim(ns, claim, '20Gi');
      await informerHolds((p) => p.spec?.resources?.requests?.storage === '20Gi', 'the edit seen');
      await peers.virtControllerSyncs(ns, 'vm7', claim);
      const name = `${claim}-20gi`;
      // One resizer sync: its second write goes on from its first write's answer, which its
      // informer may not hold yet.
      await peers.resizerStarts(ns, claim, '20Gi');
      await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
      await peers.resizerNeedsNode(ns, claim);
      const pending = await lab.waitForPhase(ns, name, Phase.NodeResizePending);
      assert.deepInclude(pending.status?.sizes, { allocated: '20Gi', pv: '20Gi' });
      await actors.kubeletStarts(ns, claim);
      await lab.waitForPhase(ns, name, Phase.NodeResizing);
      await actors.kubeletFinishes(ns, claim);
      await lab.waitForPhase(ns, name, Phase.VMUpdating);
      await informerHolds((p) => p.status?.capacity?.storage === '20Gi', 'the capacity seen');
      await peers.virtControllerSyncs(ns, 'vm7', claim);
      const done = await lab.waitForPhase(
        ns,
        name,
        Phase.HypervisorResizing,
        StageReason.NoGuestProbe,
      );
      assert.deepStrictEqual(
        Object.keys(done.status?.phaseTimestamps ?? {}).sort(),
        NODE_PATH_PHASES,
      );
      assert.deepInclude(done.status?.sizes, {
        pvcCapacity: '20Gi',
        vmiCapacity: '20Gi',
        vmiRequests: '20Gi',
      });
      const pvc = await lab.getPvc(ns, claim);
      // The resizer's allocation stays; kubelet's finish removed the resize status.
      assert.deepStrictEqual(pvc.status?.allocatedResources, { storage: '20Gi' });
      assert.isUndefined(pvc.status?.allocatedResourceStatuses);
    } finally {
      await Promise.all([pvcs.stop(), vmis.stop()]);
    }
  });

  it("follows a Longhorn Block volume's path, which takes no node step, up to the guest probe", async () => {
    const ns = 'longhorn-block';
    const claim = 'vm6-disk-0-lh001';
    await lab.stageVm(ns, 'vm6', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.virtControllerSyncs(ns, 'vm6', claim);
    const name = `${claim}-20gi`;
    await actors.resizerStarts(ns, claim, '20Gi');
    await lab.waitForPhase(
      ns,
      name,
      Phase.ControllerResizing,
      StageReason.ControllerResizeInProgress,
    );
    // longhorn-manager answers node_expansion_required = false for a Block volume: the resizer
    // finishes the PVC itself.
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerFinishes(ns, claim);
    const updating = await lab.waitForPhase(ns, name, Phase.VMUpdating);
    assert.strictEqual(updating.status?.sizes?.pvcCapacity, '20Gi');
    assert.strictEqual(updating.status?.sizes?.vmiCapacity, '10Gi');
    await actors.virtControllerSyncs(ns, 'vm6', claim);
    const done = await lab.waitForPhase(
      ns,
      name,
      Phase.HypervisorResizing,
      StageReason.NoGuestProbe,
    );
    assert.notProperty(done.status?.phaseTimestamps ?? {}, 'NodeResizePending');
    assert.notProperty(done.status?.phaseTimestamps ?? {}, 'NodeResizing');
    assert.deepInclude(done.status?.sizes, { vmiCapacity: '20Gi', vmiRequests: '20Gi' });
  });

  it('follows the Filesystem path up to the guest probe, expecting the size less the filesystem overhead', async () => {
    const ns = 'filesystem-path';
    const claim = 'vm2-disk-0-nfs01';
    await lab.stageVm(ns, 'vm2', [{ claim, volumeMode: 'Filesystem' }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.virtControllerSyncs(ns, 'vm2', claim);
    const name = `${claim}-20gi`;
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    await lab.waitForPhase(ns, name, Phase.NodeResizePending);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    await lab.waitForPhase(ns, name, Phase.VMUpdating);
    await actors.virtControllerSyncs(ns, 'vm2', claim);
    const done = await lab.waitForPhase(
      ns,
      name,
      Phase.HypervisorResizing,
      StageReason.NoGuestProbe,
    );
    const expected = ((20n * 1024n ** 3n * 945n) / 1000n / 1048576n) * 1048576n;
    assert.strictEqual(done.status?.sizes?.expected, String(expected));
  });

  it('ends Infeasible when the driver refuses, then RolledBack when the user lowers the request', async () => {
    const ns = 'controller-infeasible';
    const claim = 'vm3-disk-0-big01';
    await lab.stageVm(ns, 'vm3', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    const name = `${claim}-20gi`;
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerInfeasible(
      ns,
      claim,
      'rpc error: code = OutOfRange desc = exceeds the pool',
    );
    const infeasible = await lab.waitForPhase(
      ns,
      name,
      Phase.Infeasible,
      StageReason.ControllerResizeInfeasible,
    );
    assert.strictEqual(infeasible.status?.waitingFor, WaitingFor.User);
    assert.include(infeasible.status?.message, 'exceeds the pool');
    assert.include(infeasible.status?.message, 'roll back');
    await eventuallyValue(
      async () => (await lab.events(ns, claim)).find((e) => e.reason === 'ExpansionInfeasible'),
      (event) => event?.type === 'Warning',
      'a Warning Event',
    );
    // RecoverVolumeExpansionFailure: a request above status.capacity but below the failed one.
    await cluster.resizeClaim(ns, claim, '15Gi');
    const rolledBack = await lab.waitForPhase(
      ns,
      name,
      Phase.RolledBack,
      StageReason.RequestLowered,
    );
    assert.include(rolledBack.status?.message, 'after the expansion failed');
    // Kubernetes works towards 15Gi now: a new object follows it, not misled by the failed 20Gi.
    const next = await lab.waitForPhase(
      ns,
      `${claim}-15gi`,
      Phase.ControllerResizing,
      StageReason.WaitingForResizer,
    );
    assert.strictEqual(next.spec?.to, '15Gi');
    assert.strictEqual(next.spec?.from, '10Gi');
    await actors.resizerRetargets(ns, claim, '15Gi');
    await lab.waitForPhase(
      ns,
      `${claim}-15gi`,
      Phase.ControllerResizing,
      StageReason.ControllerResizeInProgress,
    );
    assert.lengthOf(await lab.expansions(ns), 2);
    assert.match(await metricsText(tracker), /voe_expansions_total\{outcome="RolledBack"\} [1-9]/);
  });

  it('ends an expansion Superseded when a larger size is requested, and follows the new one', async () => {
    const ns = 'superseded';
    const claim = 'vm8-disk-0-more1';
    await lab.stageVm(ns, 'vm8', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.resizerStarts(ns, claim, '20Gi');
    await lab.waitForPhase(
      ns,
      `${claim}-20gi`,
      Phase.ControllerResizing,
      StageReason.ControllerResizeInProgress,
    );
    await cluster.resizeClaim(ns, claim, '30Gi');
    const old = await lab.waitForPhase(
      ns,
      `${claim}-20gi`,
      Phase.Superseded,
      StageReason.NewerRequest,
    );
    assert.include(old.status?.message, 'raised to 30Gi');
    const next = await lab.waitForPhase(ns, `${claim}-30gi`, Phase.ControllerResizing);
    assert.deepInclude(next.spec, { from: '10Gi', to: '30Gi' });
    await actors.resizerRetargets(ns, claim, '30Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '30Gi');
    await actors.resizerNeedsNode(ns, claim);
    await lab.waitForPhase(ns, `${claim}-30gi`, Phase.NodeResizePending);
    assert.strictEqual((await lab.expansion(ns, `${claim}-20gi`)).status?.phase, Phase.Superseded);
    assert.lengthOf(await lab.expansions(ns), 2);
  });

  it('ends Infeasible when kubelet cannot grow the filesystem', async () => {
    const ns = 'node-infeasible';
    const claim = 'vm4-disk-0-fs001';
    await lab.stageVm(ns, 'vm4', [{ claim, volumeMode: 'Filesystem' }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletInfeasible(
      ns,
      claim,
      'rpc error: code = InvalidArgument desc = unsupported filesystem',
    );
    const infeasible = await lab.waitForPhase(
      ns,
      `${claim}-20gi`,
      Phase.Infeasible,
      StageReason.NodeResizeInfeasible,
    );
    assert.include(infeasible.status?.message, 'unsupported filesystem');
  });

  it('names the hotplug corner case: of two Filesystem hotplugs, the first is no longer mounted', async () => {
    const ns = 'hotplug';
    const first = 'data-hotplug-one';
    const second = 'data-hotplug-two';
    const { launcher } = await lab.stageVm(ns, 'vm5', [
      { claim: 'vm5-disk-0-root1' },
      { claim: first, volumeMode: 'Filesystem', hotplug: true },
      { claim: second, volumeMode: 'Filesystem', hotplug: true },
    ]);
    // The first hotplug: its pod mounts it until Ready.
    const old = await actors.createHotplugPod(launcher, {
      name: 'hp-volume-first',
      volumes: [{ name: first, claimName: first, hold: 'mount' }],
    });
    // The second: a new pod with every ready volume, the first only listed, then the old pod goes.
    await actors.createHotplugPod(launcher, {
      name: 'hp-volume-second',
      volumes: [
        { name: first, claimName: first, hold: 'listed' },
        { name: second, claimName: second, hold: 'mount' },
      ],
    });
    await actors.deletePod(ns, old.metadata!.name!);
    for (const claim of [first, second]) {
      await cluster.resizeClaim(ns, claim, '20Gi');
      await actors.resizerStarts(ns, claim, '20Gi');
      await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
      await actors.resizerNeedsNode(ns, claim);
    }
    const stuck = await lab.waitForPhase(
      ns,
      `${first}-20gi`,
      Phase.Stuck,
      StageReason.HotplugVolumeNotMounted,
    );
    assert.strictEqual(stuck.status?.waitingFor, WaitingFor.User);
    assert.include(stuck.status?.message, 'hp-volume-second lists it without mounting it');
    assert.include(stuck.status?.message, 'Restart the VM, or unplug the volume and plug it again');
    const fine = await lab.waitForPhase(ns, `${second}-20gi`, Phase.NodeResizePending);
    assert.strictEqual(fine.status?.pods?.hotplug, 'hp-volume-second');
    assert.match(
      await metricsText(tracker),
      /voe_expansions_stuck\{reason="HotplugVolumeNotMounted"\} [1-9]/,
    );
  });

  it('follows the active virt-launcher through a migration', async () => {
    const ns = 'migration';
    const claim = 'vm6-disk-0-mig01';
    const { vmi, launcher } = await lab.stageVm(ns, 'vm6', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    const name = `${claim}-20gi`;
    const before = await lab.waitForPhase(ns, name, Phase.NodeResizePending);
    assert.strictEqual(before.status?.pods?.launcher, launcher.metadata?.name);
    const target = await actors.createLauncher(vmi, {
      name: 'virt-launcher-vm6-target',
      node: 'harvester-node-1',
      volumes: [{ name: 'disk-0', claimName: claim, volumeMode: 'Block' }],
    });
    await actors.migrationStarts(ns, 'vm6', launcher, target);
    await actors.kubeletStarts(ns, claim);
    const during = await lab.waitForPhase(ns, name, Phase.NodeResizing);
    assert.strictEqual(during.status?.pods?.launcher, launcher.metadata?.name);
    await actors.migrationCompletes(ns, 'vm6', target);
    await eventuallyValue(
      () => lab.expansion(ns, name),
      (e) => e.status?.pods?.launcher === 'virt-launcher-vm6-target',
      'the target pod named',
    );
  });

  it('says a VM stopped midway completes at its next start', async () => {
    const ns = 'stopped';
    const claim = 'vm7-disk-0-stop1';
    const { launcher } = await lab.stageVm(ns, 'vm7', [{ claim }]);
    await cluster.resizeClaim(ns, claim, '20Gi');
    await actors.resizerStarts(ns, claim, '20Gi');
    await actors.resizerGrowsPv(`pvc-${ns}-${claim}`, '20Gi');
    await actors.resizerNeedsNode(ns, claim);
    await actors.kubeletStarts(ns, claim);
    await actors.kubeletFinishes(ns, claim);
    await lab.waitForPhase(ns, `${claim}-20gi`, Phase.VMUpdating);
    await actors.vmStops(ns, 'vm7', [launcher]);
    const stuck = await lab.waitForPhase(ns, `${claim}-20gi`, Phase.Stuck, StageReason.VMStopped);
    assert.include(stuck.status?.message, 'completes at the next start');
    assert.strictEqual(stuck.status?.waitingFor, WaitingFor.User);
  });
});
