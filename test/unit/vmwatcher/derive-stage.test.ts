import { describe, it } from 'mocha';
import { assert } from 'chai';
import { Phase, StageReason, type PhaseValue } from '../../../src/vmwatcher/index.js';
import { deriveStage, type StageInput } from '../../../src/vmwatcher/derive-stage.js';
import { WaitingFor, type WaitingForValue } from '../../../src/vmwatcher/expansion-phase.js';
import { expectedGuestBytes } from '../../../src/vmwatcher/expected-guest-bytes.js';
import { kubeVirt, vm } from '../../support/webhook/admission-objects.js';
import {
  CLAIM,
  claim,
  expansion,
  hotplugPod,
  input,
  instance,
  launcher,
  MINUTE,
  NOW,
  resizeState,
  volume,
} from '../../support/vmwatcher/expansion-fixtures.js';

const GI = 1024n ** 3n;

interface Row {
  name: string;
  input: () => StageInput;
  phase: PhaseValue;
  waitingFor: WaitingForValue | undefined;
  reason: string;
  /** Every one must appear in the message. */
  says?: Array<string | RegExp>;
}

/** The PVC done (capacity 20Gi) and the VMI informed: the VM's part. */
function vmStage(overrides: Partial<StageInput> = {}): StageInput {
  const running = instance({ capacity: '20Gi' });
  return input({
    pvc: claim({ capacity: '20Gi' }),
    pv: volume('20Gi'),
    vmi: running,
    pods: [launcher(running)],
    ...overrides,
  });
}

const hotplugVolumes = [
  { name: 'disk-0', persistentVolumeClaim: { claimName: 'vm1-disk-0-root' } },
  { name: CLAIM, persistentVolumeClaim: { claimName: CLAIM, hotpluggable: true } },
];

/** A Filesystem volume hotplugged into vm1, node expansion pending, held by `hold` in the current hp pod. */
function hotplugged(
  hold: 'mount' | 'listed' | 'device' | 'none',
  volumeMode: 'Block' | 'Filesystem' = 'Filesystem',
): StageInput {
  const running = instance({ volumes: hotplugVolumes, volumeMode });
  const pod = launcher(running, undefined, undefined, undefined, [
    { name: 'disk-0', claimName: 'vm1-disk-0-root', volumeMode: 'Block' },
  ]);
  const pods = [pod];
  if (hold !== 'none') {
    pods.push(
      hotplugPod(pod, {
        name: 'hp-volume-7kx2q',
        uid: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
        volumes: [{ name: CLAIM, claimName: CLAIM, hold }],
      }),
    );
  }
  return input({
    pvc: resizeState(claim({ volumeMode }), {
      status: 'NodeResizePending',
      allocated: '20Gi',
      conditions: [{ type: 'Resizing' }, { type: 'FileSystemResizePending' }],
    }),
    pv: volume('20Gi', volumeMode),
    vmi: running,
    pods,
  });
}

const ROWS: Row[] = [
  {
    name: 'request raised, external-resizer has not started',
    input: () => input(),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.WaitingForResizer,
    says: ['asks for 20Gi', 'has not started'],
  },
  {
    name: 'ControllerResizeInProgress with condition Resizing',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'ControllerResizeInProgress',
          allocated: '20Gi',
          conditions: [{ type: 'Resizing' }],
        }),
      }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeInProgress,
  },
  {
    name: 'legacy path (gate off): condition Resizing only',
    input: () => input({ pvc: resizeState(claim(), { conditions: [{ type: 'Resizing' }] }) }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeInProgress,
  },
  {
    name: 'a final, not infeasible, driver error: ControllerResizeError only, retried',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'ControllerResizeInProgress',
          conditions: [
            {
              type: 'ControllerResizeError',
              message: 'failed to expand pvc with rpc error: code = Internal desc = refused',
            },
          ],
        }),
      }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeError,
    says: ['retries', 'code = Internal desc = refused'],
  },
  {
    name: 'ControllerResizeInfeasible (Kubernetes 1.31+)',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'ControllerResizeInfeasible',
          allocated: '20Gi',
          conditions: [
            {
              type: 'ControllerResizeError',
              message: 'failed to expand pvc with rpc error: code = OutOfRange desc = too large',
            },
          ],
        }),
      }),
    phase: Phase.Infeasible,
    waitingFor: WaitingFor.User,
    reason: StageReason.ControllerResizeInfeasible,
    says: ['code = OutOfRange desc = too large', 'does not retry', 'roll back', '10Gi'],
  },
  {
    name: 'ControllerResizeFailed (Kubernetes 1.30 spelling)',
    input: () =>
      input({ pvc: resizeState(claim(), { status: 'ControllerResizeFailed', allocated: '20Gi' }) }),
    phase: Phase.Infeasible,
    waitingFor: WaitingFor.User,
    reason: StageReason.ControllerResizeInfeasible,
    says: ['ControllerResizeFailed'],
  },
  {
    name: 'a resize state about another size (a request lowered since) says nothing about this one',
    input: () =>
      input({
        expansion: expansion('15Gi'),
        pvc: resizeState(claim({ request: '15Gi' }), {
          status: 'ControllerResizeInfeasible',
          allocated: '20Gi',
          conditions: [{ type: 'ControllerResizeError', message: 'too large' }],
        }),
      }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.WaitingForResizer,
  },
  {
    name: 'PV grown while the resizer still says ControllerResizeInProgress (its last write pending)',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'ControllerResizeInProgress',
          conditions: [{ type: 'Resizing' }],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeInProgress,
  },
  {
    name: 'PV grown, NodeResizePending with FileSystemResizePending',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'NodeResizePending',
          allocated: '20Gi',
          conditions: [{ type: 'Resizing' }, { type: 'FileSystemResizePending' }],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.NodeResizePending,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizePending,
  },
  {
    name: 'legacy path: FileSystemResizePending without any resize status',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          conditions: [{ type: 'Resizing' }, { type: 'FileSystemResizePending' }],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.NodeResizePending,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizePending,
  },
  {
    name: 'legacy path: PV grown, only Resizing: the resizer has yet to write the PVC',
    input: () =>
      input({
        pvc: resizeState(claim(), { conditions: [{ type: 'Resizing' }] }),
        pv: volume('20Gi'),
      }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeInProgress,
  },
  {
    name: 'PV grown, the PVC without any resize mark yet (its cache behind the PV cache): the resizer, never kubelet',
    input: () => input({ pvc: claim(), pv: volume('20Gi') }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.ControllerResizeInProgress,
    says: ['has yet to record it in the PVC'],
  },
  {
    name: 'NodeResizeInProgress',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'NodeResizeInProgress',
          allocated: '20Gi',
          conditions: [{ type: 'FileSystemResizePending' }],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.NodeResizing,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizeInProgress,
  },
  {
    name: 'NodeResizeInProgress with NodeResizeError (retried)',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'NodeResizeInProgress',
          conditions: [{ type: 'NodeResizeError', message: 'resize2fs: Device or resource busy' }],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.NodeResizing,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizeError,
    says: ['resize2fs: Device or resource busy'],
  },
  {
    name: 'NodeResizeInfeasible (Kubernetes 1.31+)',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'NodeResizeInfeasible',
          conditions: [
            { type: 'NodeResizeError', message: 'rpc error: code = InvalidArgument desc = bad fs' },
          ],
        }),
        pv: volume('20Gi'),
      }),
    phase: Phase.Infeasible,
    waitingFor: WaitingFor.User,
    reason: StageReason.NodeResizeInfeasible,
    says: ['bad fs', 'kubelet'],
  },
  {
    name: 'NodeResizeFailed (Kubernetes 1.30 spelling)',
    input: () =>
      input({ pvc: resizeState(claim(), { status: 'NodeResizeFailed' }), pv: volume('20Gi') }),
    phase: Phase.Infeasible,
    waitingFor: WaitingFor.User,
    reason: StageReason.NodeResizeInfeasible,
  },
  {
    name: 'PVC grown, the VMI still has the old size',
    input: () => vmStage({ vmi: instance(), pods: [launcher(instance())] }),
    phase: Phase.VMUpdating,
    waitingFor: WaitingFor.VirtController,
    reason: StageReason.WaitingForVmi,
    says: ['capacity 10Gi'],
  },
  {
    name: 'VMI capacity grown but not requests (both must grow)',
    input: () => vmStage({ vmi: instance({ capacity: '20Gi', requests: '10Gi' }) }),
    phase: Phase.VMUpdating,
    waitingFor: WaitingFor.VirtController,
    reason: StageReason.WaitingForVmi,
  },
  {
    name: 'VMI informed, no guest probe configured',
    input: () => vmStage(),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
    says: ['No guest probe is configured', 'lsblk'],
  },
  {
    name: 'a guest probe limited to other namespaces: GuestUnverifiable naming the list',
    input: () => vmStage({ guestProbeNamespaces: ['vms-a', 'vms-b'] }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    says: ['vms-a, vms-b', '--guest-probe-namespaces', 'not default', 'lsblk'],
  },
  {
    name: 'a guest probe limited to no namespace at all: GuestUnverifiable',
    input: () => vmStage({ guestProbeNamespaces: [] }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    says: ['(none)'],
  },
  {
    name: 'a guest probe limited to namespaces, the VM opted out: NoGuestProbe',
    input: () =>
      vmStage({
        guestProbeNamespaces: ['vms-a'],
        vm: {
          ...vm('vm1'),
          metadata: {
            ...vm('vm1').metadata,
            annotations: { 'storage.voe.dev/guest-probe': 'off' },
          },
        },
      }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
  },
  {
    name: 'VMI informed by a KubeVirt before v0.50 (capacity only)',
    input: () => vmStage({ vmi: instance({ capacity: '20Gi', requests: null }) }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
  },
  {
    name: 'ExpandDisks not listed',
    input: () => vmStage({ kubeVirt: kubeVirt({ gates: ['LiveMigration', 'HotplugVolumes'] }) }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.ExpandDisksOff,
    says: ['voe enable', 'next start', 'not listed in featureGates'],
  },
  {
    name: 'ExpandDisks listed and disabled: listed wins, as in KubeVirt',
    input: () => vmStage({ kubeVirt: kubeVirt({ disabled: ['ExpandDisks'] }) }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
  },
  {
    name: 'ExpandDisks only in disabledFeatureGates',
    input: () =>
      vmStage({
        kubeVirt: kubeVirt({ gates: ['LiveMigration'], disabled: ['ExpandDisks'] }),
      }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.ExpandDisksOff,
    says: ['Remove ExpandDisks from', 'disabledFeatureGates'],
  },
  {
    name: 'no KubeVirt CR',
    input: () => vmStage({ kubeVirt: undefined }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.ExpandDisksOff,
    says: ['no KubeVirt CR was found'],
  },
  {
    name: 'KubeVirt v1.9.0: ExpandDisks GA without being listed',
    input: () => vmStage({ kubeVirt: kubeVirt({ gates: [], version: 'v1.9.0' }) }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.NoGuestProbe,
  },
  {
    name: 'probe: the hypervisor disk is still small',
    input: () => vmStage({ probe: { hypervisorBytes: 10n * GI, guestBytes: 10n * GI } }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.WaitingForHypervisor,
  },
  {
    name: 'probe: the hypervisor grew, the guest not yet',
    input: () => vmStage({ probe: { hypervisorBytes: 20n * GI, guestBytes: 10n * GI } }),
    phase: Phase.GuestVerifying,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.WaitingForGuest,
  },
  {
    name: 'probe: the guest sees the new size',
    input: () => vmStage({ probe: { hypervisorBytes: 20n * GI, guestBytes: 20n * GI } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: [`${20n * GI} bytes`],
  },
  {
    name: 'probe: the guest sees the new size on another device name',
    input: () =>
      vmStage({ probe: { hypervisorBytes: 20n * GI, guestBytes: 20n * GI, guestDevice: 'vdb' } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['(vdb)'],
  },
  {
    name: 'probe failed: sizes unknown, the failure in the message',
    input: () => vmStage({ probe: { failure: 'virsh timed out after 20s' } }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.WaitingForHypervisor,
    says: ['unknown bytes', 'virsh timed out after 20s'],
  },
  {
    name: 'probe: no guest agent, the hypervisor still small',
    input: () =>
      vmStage({ probe: { hypervisorBytes: 10n * GI, guestUnverifiable: 'no AgentConnected' } }),
    phase: Phase.HypervisorResizing,
    waitingFor: WaitingFor.VirtHandler,
    reason: StageReason.WaitingForHypervisor,
  },
  {
    name: 'probe: no guest agent once the hypervisor grew',
    input: () =>
      vmStage({
        probe: {
          hypervisorBytes: 20n * GI,
          guestUnverifiable: 'the VMI has no AgentConnected condition',
        },
      }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.GuestUnverifiable,
    says: [`${20n * GI} bytes`, 'no AgentConnected condition', 'qemu-guest-agent'],
  },
  {
    name: "probe: guest-exec refused, the guest's filesystem not grown",
    input: () =>
      vmStage({
        probe: {
          hypervisorBytes: 20n * GI,
          guestBytes: 9n * GI,
          guestEvidence: 'Filesystem',
          guestDevice: '/data',
        },
      }),
    phase: Phase.GuestVerifying,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.WaitingForGuest,
    says: ['filesystem /data', 'guest-exec refused', 'grow the partition and filesystem'],
  },
  {
    name: "probe: guest-exec refused, the guest's filesystem grown past the old size",
    input: () =>
      vmStage({
        probe: {
          hypervisorBytes: 20n * GI,
          guestBytes: 19n * GI,
          guestEvidence: 'Filesystem',
          guestDevice: '/data',
        },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['filesystem', `${19n * GI} bytes`],
  },
  {
    name: 'a larger size requested meanwhile',
    input: () => input({ pvc: claim({ request: '30Gi' }) }),
    phase: Phase.Superseded,
    waitingFor: undefined,
    reason: StageReason.NewerRequest,
    says: ['raised to 30Gi'],
  },
  {
    name: 'the request lowered after Infeasible (RecoverVolumeExpansionFailure)',
    input: () =>
      input({
        pvc: resizeState(claim({ request: '15Gi' }), {
          status: 'ControllerResizeInfeasible',
          allocated: '20Gi',
        }),
        expansion: expansion('20Gi', {
          phase: Phase.Infeasible,
          reason: StageReason.ControllerResizeInfeasible,
        }),
      }),
    phase: Phase.RolledBack,
    waitingFor: undefined,
    reason: StageReason.RequestLowered,
    says: ['lowered to 15Gi after the expansion failed', 'works towards 15Gi'],
  },
  {
    name: 'the request lowered back to the capacity',
    input: () => input({ pvc: claim({ request: '10Gi' }) }),
    phase: Phase.RolledBack,
    waitingFor: undefined,
    reason: StageReason.RequestLowered,
  },
  {
    name: 'a final phase stays whatever the objects say',
    input: () =>
      input({
        expansion: expansion('20Gi', {
          phase: Phase.Completed,
          reason: StageReason.GuestSeesNewSize,
          message: 'The guest sees the new size.',
        }),
        pvc: claim({ request: '40Gi' }),
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['The guest sees the new size.'],
  },
  {
    name: 'the VM stopped after the PVC grew',
    input: () => vmStage({ vmi: undefined, pods: [], vm: vm('vm1', { status: 'Stopped' }) }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.VMStopped,
    says: ['The VM vm1 is not running', 'completes at the next start', 'start the VM'],
  },
  {
    name: 'the VM stopped while node expansion is pending',
    input: () =>
      input({
        pvc: resizeState(claim(), {
          status: 'NodeResizePending',
          conditions: [{ type: 'FileSystemResizePending' }],
        }),
        pv: volume('20Gi'),
        vmi: undefined,
        pods: [],
        vm: vm('vm1', { status: 'Stopped' }),
      }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.VMStopped,
    says: ['kubelet grows the filesystem when the pod mounts it'],
  },
  {
    name: 'a VMI that has finished counts as stopped',
    input: () => {
      const done = instance({ capacity: '20Gi' });
      done.status = { ...done.status, phase: 'Succeeded' };
      return vmStage({ vmi: done });
    },
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.VMStopped,
  },
  {
    name: 'the VM stopped while the controller expands: it goes on offline',
    input: () => input({ vmi: undefined, pods: [], vm: vm('vm1', { status: 'Stopped' }) }),
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.WaitingForResizer,
  },
  {
    name: 'hotplugged Filesystem volume listed but not mounted by the current hp pod',
    input: () => hotplugged('listed'),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.HotplugVolumeNotMounted,
    says: [
      'hp-volume-7kx2q lists it without mounting it',
      'Restart the VM, or unplug the volume and plug it again',
    ],
  },
  {
    name: 'hotplugged Filesystem volume with no hp pod at all',
    input: () => hotplugged('none'),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.HotplugVolumeNotMounted,
  },
  {
    name: 'hotplugged Filesystem volume mounted by the hp pod',
    input: () => hotplugged('mount'),
    phase: Phase.NodeResizePending,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizePending,
  },
  {
    name: 'hotplugged Block volume only listed: not the corner case',
    input: () => hotplugged('listed', 'Block'),
    phase: Phase.NodeResizePending,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizePending,
  },
  {
    name: 'spec.to edited by hand into no quantity',
    input: () => input({ expansion: expansion('twenty gigs') }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.InvalidVolumeExpansion,
    says: ['changed by hand', '"twenty gigs"', 'delete it'],
  },
  {
    name: 'spec.pvcName edited by hand',
    input: () => {
      const edited = expansion();
      edited.spec = { ...edited.spec, pvcName: 'other' };
      return input({ expansion: edited });
    },
    phase: Phase.Stuck,
    waitingFor: WaitingFor.User,
    reason: StageReason.InvalidVolumeExpansion,
    says: ['spec.pvcName is "other"'],
  },
  {
    name: "a malformed quantity in the VMI's PVC info",
    input: () => vmStage({ vmi: instance({ capacity: 'ten gigs' }) }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.VirtController,
    reason: StageReason.MalformedQuantity,
    says: ['"ten gigs"', 'persistentVolumeClaimInfo.capacity.storage'],
  },
  {
    name: 'a malformed PV capacity',
    input: () => input({ pv: volume('lots') }),
    phase: Phase.Stuck,
    waitingFor: WaitingFor.ExternalResizer,
    reason: StageReason.MalformedQuantity,
  },
];

describe('deriveStage', () => {
  describe('phases, level-based from the objects', () => {
    for (const row of ROWS) {
      it(row.name, () => {
        const stage = deriveStage(row.input());
        assert.deepStrictEqual(
          { phase: stage.phase, waitingFor: stage.waitingFor, reason: stage.reason },
          { phase: row.phase, waitingFor: row.waitingFor, reason: row.reason },
          stage.message,
        );
        assert.isAbove(stage.message.length, 20);
        for (const part of row.says ?? []) {
          if (typeof part === 'string') assert.include(stage.message, part);
          else assert.match(stage.message, part);
        }
      });
    }
  });

  it('records the observed sizes and the pods', () => {
    const stage = deriveStage(
      vmStage({
        pvc: resizeState(claim({ capacity: '20Gi' }), { allocated: '20Gi' }),
        probe: { hypervisorBytes: 20n * GI, guestBytes: 10n * GI },
      }),
    );
    assert.deepStrictEqual(stage.sizes, {
      request: '20Gi',
      pvcCapacity: '20Gi',
      allocated: '20Gi',
      pv: '20Gi',
      vmiCapacity: '20Gi',
      vmiRequests: '20Gi',
      expected: String(20n * GI),
      hypervisor: String(20n * GI),
      guest: String(10n * GI),
      guestEvidence: 'BlockDevice',
    });
    assert.deepStrictEqual(stage.pods, { launcher: 'virt-launcher-vm1-x7k2p', hotplug: undefined });
  });

  it('names the hotplug pod that holds a hotplugged volume', () => {
    const stage = deriveStage(hotplugged('mount'));
    assert.strictEqual(stage.pods.hotplug, 'hp-volume-7kx2q');
    assert.strictEqual(stage.pods.launcher, 'virt-launcher-vm1-x7k2p');
  });

  it('expects floor_1MiB((1 - overhead) x size) in the guest of a Filesystem volume', () => {
    const running = instance({ capacity: '20Gi', volumeMode: 'Filesystem', overhead: '0.055' });
    const expected = expectedGuestBytes({
      volumeMode: 'Filesystem',
      request: 20n * GI,
      capacity: 20n * GI,
      filesystemOverhead: '0.055',
    });
    assert.strictEqual(expected, ((20n * GI * 945n) / 1000n / 1048576n) * 1048576n);
    const base = { vmi: running, pods: [launcher(running)] };
    const short = deriveStage(
      vmStage({ ...base, probe: { hypervisorBytes: expected, guestBytes: expected - 1n } }),
    );
    assert.strictEqual(short.phase, Phase.GuestVerifying);
    assert.strictEqual(short.sizes.expected, String(expected));
    const done = deriveStage(
      vmStage({ ...base, probe: { hypervisorBytes: expected, guestBytes: expected } }),
    );
    assert.strictEqual(done.phase, Phase.Completed);
  });

  describe('the active virt-launcher', () => {
    function migrating(state: Record<string, unknown>) {
      const running = instance({ capacity: '20Gi' });
      const source = launcher(running, 'virt-launcher-vm1-src01', 'uid-source', 'harvester-node-0');
      const target = launcher(running, 'virt-launcher-vm1-tgt01', 'uid-target', 'harvester-node-1');
      running.status = {
        ...running.status,
        activePods: { 'uid-source': 'harvester-node-0', 'uid-target': 'harvester-node-1' },
        migrationState: {
          sourcePod: 'virt-launcher-vm1-src01',
          targetPod: 'virt-launcher-vm1-tgt01',
          sourceNode: 'harvester-node-0',
          targetNode: 'harvester-node-1',
          ...state,
        },
      };
      return vmStage({ vmi: running, pods: [source, target] });
    }

    it('is the source while a migration runs', () => {
      assert.strictEqual(
        deriveStage(migrating({ completed: false })).pods.launcher,
        'virt-launcher-vm1-src01',
      );
    });

    it('is the target once it completed', () => {
      assert.strictEqual(
        deriveStage(migrating({ completed: true })).pods.launcher,
        'virt-launcher-vm1-tgt01',
      );
    });

    it('is the source again when it failed', () => {
      assert.strictEqual(
        deriveStage(migrating({ completed: true, failed: true })).pods.launcher,
        'virt-launcher-vm1-src01',
      );
    });

    it('is the pod of activePods on the VMI node without a migration state', () => {
      const running = instance({ capacity: '20Gi' });
      const old = launcher(running, 'virt-launcher-vm1-old01', 'uid-old', 'harvester-node-0');
      old.metadata = { ...old.metadata, deletionTimestamp: '2026-11-20T08:59:00Z' };
      const current = launcher(running, 'virt-launcher-vm1-new01', 'uid-new', 'harvester-node-1');
      running.status = {
        ...running.status,
        nodeName: 'harvester-node-1',
        activePods: { 'uid-new': 'harvester-node-1' },
      };
      delete running.status.migrationState;
      assert.strictEqual(
        deriveStage(vmStage({ vmi: running, pods: [old, current] })).pods.launcher,
        'virt-launcher-vm1-new01',
      );
    });
  });

  describe('NoProgress', () => {
    const pending = () =>
      resizeState(claim(), {
        status: 'NodeResizePending',
        conditions: [{ type: 'FileSystemResizePending' }],
      });

    type Stage = ReturnType<typeof deriveStage>;
    /** The fields of the stage a row checks; a key given as undefined must be absent. */
    interface Checked {
      phase?: Stage['phase'];
      reason?: Stage['reason'];
      waitingFor?: Stage['waitingFor'];
      recheckAfterMs?: number | undefined;
      progress?: Stage['progress'];
      hypervisor?: string;
      guest?: string | undefined;
    }
    const checked = (stage: Stage, keys: readonly string[]): Checked => {
      const all: Record<string, unknown> = {
        phase: stage.phase,
        reason: stage.reason,
        waitingFor: stage.waitingFor,
        recheckAfterMs: stage.recheckAfterMs,
        progress: stage.progress,
        hypervisor: stage.sizes.hypervisor,
        guest: stage.sizes.guest,
      };
      return Object.fromEntries(keys.map((key) => [key, all[key]])) as Checked;
    };
    const since = (minutesAgo: number) => new Date(NOW - minutesAgo * MINUTE).toISOString();
    const rows: Array<{
      name: string;
      input: () => ReturnType<typeof input>;
      expected: Checked;
      says?: string[];
    }> = [
      {
        name: 'a phase that has not moved for --stuck-after is Stuck, naming the actor',
        input: () =>
          input({
            pvc: pending(),
            pv: volume('20Gi'),
            expansion: expansion('20Gi', {
              phase: Phase.NodeResizePending,
              progress: { phase: Phase.NodeResizePending, since: since(11) },
            }),
          }),
        expected: {
          phase: Phase.Stuck,
          reason: StageReason.NoProgress,
          waitingFor: WaitingFor.Kubelet,
          progress: { phase: Phase.NodeResizePending, since: NOW - 11 * MINUTE },
        },
        says: [
          'No progress for 11m in NodeResizePending, waiting for kubelet',
          'Check the kubelet',
        ],
      },
      {
        name: 'before --stuck-after, the phase stays and a recheck is asked for when it runs out',
        input: () =>
          input({
            pvc: pending(),
            pv: volume('20Gi'),
            expansion: expansion('20Gi', {
              phase: Phase.NodeResizePending,
              progress: { phase: Phase.NodeResizePending, since: since(4) },
            }),
          }),
        expected: { phase: Phase.NodeResizePending, recheckAfterMs: 6 * MINUTE },
      },
      {
        name: 'a new phase starts the clock again',
        input: () =>
          input({
            expansion: expansion('20Gi', {
              phase: Phase.Stuck,
              reason: StageReason.NoProgress,
              progress: { phase: Phase.NodeResizePending, since: since(60) },
            }),
            pvc: claim({ capacity: '20Gi' }),
            pv: volume('20Gi'),
          }),
        expected: {
          phase: Phase.VMUpdating,
          progress: { phase: Phase.VMUpdating, since: NOW },
          recheckAfterMs: 10 * MINUTE,
        },
      },
      {
        name: 'does not apply to NoGuestProbe: nothing would ever move it',
        input: () =>
          vmStage({
            expansion: expansion('20Gi', {
              phase: Phase.HypervisorResizing,
              progress: { phase: Phase.HypervisorResizing, since: since(600) },
            }),
          }),
        expected: {
          phase: Phase.HypervisorResizing,
          reason: StageReason.NoGuestProbe,
          recheckAfterMs: undefined,
        },
      },
      {
        name: 'turns a hypervisor that stays below past stuckAfter into Stuck, waiting for virt-handler',
        input: () =>
          vmStage({
            probe: { hypervisorBytes: 10n * GI, guestBytes: 10n * GI },
            expansion: expansion('20Gi', {
              phase: Phase.HypervisorResizing,
              progress: { phase: Phase.HypervisorResizing, since: since(11) },
            }),
          }),
        expected: {
          phase: Phase.Stuck,
          reason: StageReason.NoProgress,
          waitingFor: WaitingFor.VirtHandler,
          hypervisor: String(10n * GI),
        },
        says: ['libvirt failed to expand disk image'],
      },
      {
        name: 'does not apply to GuestUnverifiable: the hypervisor size is kept',
        input: () =>
          vmStage({
            probe: { hypervisorBytes: 20n * GI, guestUnverifiable: 'no agent' },
            expansion: expansion('20Gi', {
              phase: Phase.Stuck,
              progress: { phase: Phase.GuestVerifying, since: since(60) },
            }),
          }),
        expected: {
          reason: StageReason.GuestUnverifiable,
          hypervisor: String(20n * GI),
          guest: undefined,
          recheckAfterMs: undefined,
        },
      },
      {
        name: 'keeps measuring the phase under an immediate Stuck (VMStopped)',
        input: () =>
          vmStage({
            vmi: undefined,
            pods: [],
            expansion: expansion('20Gi', {
              phase: Phase.VMUpdating,
              progress: { phase: Phase.VMUpdating, since: since(2) },
            }),
          }),
        expected: {
          reason: StageReason.VMStopped,
          progress: { phase: Phase.VMUpdating, since: NOW - 2 * MINUTE },
        },
      },
    ];
    for (const row of rows) {
      it(row.name, () => {
        const stage = deriveStage(row.input());
        assert.deepStrictEqual(
          checked(stage, Object.keys(row.expected)),
          row.expected,
          stage.message,
        );
        for (const part of row.says ?? []) assert.include(stage.message, part);
      });
    }
  });

  it('lists malformed input for the log', () => {
    const stage = deriveStage(
      vmStage({ vmi: instance({ capacity: 'ten gigs', requests: '20Gi' }) }),
    );
    assert.lengthOf(stage.problems, 1);
    assert.match(stage.problems[0]!, /ten gigs/);
  });
});

describe('deriveStage: Filesystem-mode sizes from what the hypervisor reports', () => {
  const MI = 1024n * 1024n;
  /** What virt-launcher made of 20Gi on a real ext4: below floor_1MiB(0.945 x 20Gi) = 19353 MiB. */
  const grown = 19100n * MI;
  const start = 9400n * MI;
  function filesystemStage(
    probe: StageInput['probe'],
    previous?: { hypervisor?: string; hypervisorStart?: string },
  ): StageInput {
    const running = instance({ capacity: '20Gi', volumeMode: 'Filesystem', overhead: '0.055' });
    return vmStage({
      pvc: claim({ capacity: '20Gi', volumeMode: 'Filesystem' }),
      pv: volume('20Gi', 'Filesystem'),
      vmi: running,
      pods: [launcher(running)],
      expansion: expansion(
        '20Gi',
        previous
          ? {
              phase: Phase.HypervisorResizing,
              progress: { phase: Phase.HypervisorResizing, since: '2026-11-20T08:59:00Z' },
              sizes: previous,
            }
          : undefined,
      ),
      probe,
    });
  }
  const table: Array<{
    name: string;
    input: () => StageInput;
    phase: PhaseValue;
    reason: string;
    says?: string[];
    hypervisorStart?: string;
  }> = [
    {
      name: 'the first read, before the growth: the start is recorded',
      input: () => filesystemStage({ hypervisorBytes: start, guestBytes: start }),
      phase: Phase.HypervisorResizing,
      reason: StageReason.WaitingForHypervisor,
      says: ['not above the', String(start)],
      hypervisorStart: String(start),
    },
    {
      name: 'grown above the start, read once',
      input: () =>
        filesystemStage(
          { hypervisorBytes: grown, guestBytes: start },
          { hypervisor: String(start), hypervisorStart: String(start) },
        ),
      phase: Phase.HypervisorResizing,
      reason: StageReason.WaitingForHypervisor,
      says: ['has grown from', 'settled'],
      hypervisorStart: String(start),
    },
    {
      name: 'grown and stable below the formula, the guest not yet',
      input: () =>
        filesystemStage(
          { hypervisorBytes: grown, guestBytes: start },
          { hypervisor: String(grown), hypervisorStart: String(start) },
        ),
      phase: Phase.GuestVerifying,
      reason: StageReason.WaitingForGuest,
      says: [`below the ${grown} the hypervisor shows`],
    },
    {
      name: 'grown and stable below the formula, the guest shows it: Completed',
      input: () =>
        filesystemStage(
          { hypervisorBytes: grown, guestBytes: grown, guestDevice: 'vda' },
          { hypervisor: String(grown), hypervisorStart: String(start) },
        ),
      phase: Phase.Completed,
      reason: StageReason.GuestSeesNewSize,
      says: [`at ${grown} bytes`],
      hypervisorStart: String(start),
    },
    {
      name: 'the guest below what the hypervisor shows is not Completed',
      input: () =>
        filesystemStage(
          { hypervisorBytes: grown, guestBytes: grown - MI },
          { hypervisor: String(grown), hypervisorStart: String(start) },
        ),
      phase: Phase.GuestVerifying,
      reason: StageReason.WaitingForGuest,
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const stage = deriveStage(row.input());
      assert.strictEqual(stage.phase, row.phase, stage.message);
      assert.strictEqual(stage.reason, row.reason, stage.message);
      for (const text of row.says ?? []) assert.include(stage.message, text);
      if (row.hypervisorStart) assert.strictEqual(stage.sizes.hypervisorStart, row.hypervisorStart);
    });

  it('never stays in HypervisorResizing for a grown disk below the formula (the old NoProgress)', () => {
    const stage = deriveStage({
      ...filesystemStage(
        { hypervisorBytes: grown, guestBytes: grown },
        { hypervisor: String(grown), hypervisorStart: String(start) },
      ),
      now: NOW + 60 * MINUTE,
    });
    assert.notStrictEqual(stage.reason, StageReason.NoProgress);
    assert.strictEqual(stage.phase, Phase.Completed);
  });
});
