import { describe, it } from 'mocha';
import { assert } from 'chai';
import { unplugAllOperations } from '../../../src/guest-csi-bridge/controller/hotplug-requests.js';
import {
  decideNodeAction,
  type NodeAction,
} from '../../../src/guest-csi-bridge/monitor/decide-node-action.js';
import type {
  GuestNode,
  MonitoredVm,
} from '../../../src/guest-csi-bridge/monitor/guest-objects.js';
import {
  guestVolumesOf,
  MONITOR_TAINT_VALUE,
  nodeFactsOf,
  OUT_OF_SERVICE_TAINT,
  taintsWith,
  vmNameOf,
  vmRunningOf,
  type OutOfService,
} from '../../../src/guest-csi-bridge/monitor/node-monitor-facts.js';
import type { HostVmi } from '../../../src/guest-csi-bridge/host/host-objects.js';

const DRIVER = 'driver.harvesterhci.io';

function node(ready: 'True' | 'False' | 'Unknown' | undefined, taint: OutOfService): GuestNode {
  return {
    metadata: { name: 'worker-1', resourceVersion: '5' },
    spec: {
      taints: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        ...(taint === 'none'
          ? []
          : [
              {
                key: OUT_OF_SERVICE_TAINT,
                effect: 'NoExecute',
                ...(taint === 'ours' ? { value: MONITOR_TAINT_VALUE } : { value: 'nodeshutdown' }),
              },
            ]),
      ],
    },
    status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] },
  };
}

/** A VM as KubeVirt's virt-controller reports it: Ready and Running while its instance runs. */
function vm(running: boolean, volumes: Array<[string, boolean]>): MonitoredVm {
  return {
    metadata: { name: 'worker-1', resourceVersion: '11' },
    spec: {
      template: {
        spec: {
          volumes: [
            { name: 'rootdisk', persistentVolumeClaim: { claimName: 'root' } },
            ...volumes.map(([name, hotpluggable]) => ({
              name,
              persistentVolumeClaim: { claimName: name, hotpluggable },
            })),
          ],
          domain: {
            devices: {
              disks: [{ name: 'rootdisk' }, ...volumes.map(([name]) => ({ name }))],
            },
          },
        },
      },
    },
    status: running
      ? { printableStatus: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }
      : { printableStatus: 'Stopped', conditions: [{ type: 'Ready', status: 'False' }] },
  };
}

const VMI: HostVmi = { metadata: { name: 'worker-1' }, status: { phase: 'Running' } };
const GUEST_VOLUMES = new Set(['pvc-a', 'pvc-b']);

describe('guest CSI bridge: the node monitor decision', () => {
  const cases: Array<{
    name: string;
    ready: 'True' | 'False' | 'Unknown' | undefined;
    taint: OutOfService;
    vm: MonitoredVm | undefined;
    vmi: HostVmi | undefined;
    expected: NodeAction['kind'];
    volumes?: string[];
  }> = [
    {
      name: 'a healthy node',
      ready: 'True',
      taint: 'none',
      vm: vm(true, []),
      vmi: VMI,
      expected: 'none',
    },
    {
      name: 'no Ready condition yet',
      ready: undefined,
      taint: 'none',
      vm: vm(false, []),
      vmi: undefined,
      expected: 'none',
    },
    {
      name: 'a NotReady node whose VM runs (a guest hang: no-op, as Harvester)',
      ready: 'False',
      taint: 'none',
      vm: vm(true, [['pvc-a', true]]),
      vmi: VMI,
      expected: 'none',
    },
    {
      name: 'a Ready node whose VM does not run (kubelet has not missed its heartbeat yet)',
      ready: 'True',
      taint: 'none',
      vm: vm(false, []),
      vmi: undefined,
      expected: 'none',
    },
    {
      name: 'an Unknown node whose VM stopped: tainted',
      ready: 'Unknown',
      taint: 'none',
      vm: vm(false, [['pvc-a', true]]),
      vmi: undefined,
      expected: 'taint',
    },
    {
      name: 'a NotReady node whose VM is gone from the host: tainted',
      ready: 'False',
      taint: 'none',
      vm: undefined,
      vmi: undefined,
      expected: 'taint',
    },
    {
      name: 'a NotReady node whose VMI was deleted (the VM status not updated yet): tainted',
      ready: 'False',
      taint: 'none',
      vm: vm(true, [['pvc-a', true]]),
      vmi: undefined,
      expected: 'taint',
    },
    {
      name: "tainted by the monitor, VM stopped: the guest's hotplugged volumes released",
      ready: 'Unknown',
      taint: 'ours',
      vm: vm(false, [
        ['pvc-a', true],
        ['pvc-b', true],
        ['cdrom', false],
        ['by-hand', true],
      ]),
      vmi: undefined,
      expected: 'release',
      volumes: ['pvc-a', 'pvc-b'],
    },
    {
      name: 'tainted by an operator, VM stopped: released too',
      ready: 'False',
      taint: 'other',
      vm: vm(false, [['pvc-b', true]]),
      vmi: undefined,
      expected: 'release',
      volumes: ['pvc-b'],
    },
    {
      name: 'tainted, VM stopped, nothing of the guest plugged',
      ready: 'False',
      taint: 'ours',
      vm: vm(false, [['by-hand', true]]),
      vmi: undefined,
      expected: 'none',
    },
    {
      name: 'tainted, the VM gone: nothing to release',
      ready: 'False',
      taint: 'ours',
      vm: undefined,
      vmi: undefined,
      expected: 'none',
    },
    {
      name: "back: Ready and running, the monitor's taint removed",
      ready: 'True',
      taint: 'ours',
      vm: vm(true, [['pvc-a', true]]),
      vmi: VMI,
      expected: 'untaint',
    },
    {
      name: "back: an operator's taint stays",
      ready: 'True',
      taint: 'other',
      vm: vm(true, []),
      vmi: VMI,
      expected: 'none',
    },
    {
      name: "NotReady, the VM runs again: the monitor's taint kept until the node is Ready",
      ready: 'False',
      taint: 'ours',
      vm: vm(true, []),
      vmi: VMI,
      expected: 'none',
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const action = decideNodeAction(
        nodeFactsOf({
          node: node(c.ready, c.taint),
          driver: DRIVER,
          vm: c.vm,
          vmi: c.vmi,
          guestVolumes: GUEST_VOLUMES,
        }),
      );
      assert.strictEqual(action.kind, c.expected, JSON.stringify(action));
      if (action.kind === 'release') {
        assert.deepEqual(action.volumes, c.volumes);
        assert.strictEqual(action.vm, 'worker-1');
      }
    });

  it('a node being deleted is left alone', () => {
    const deleting = { ...node('False', 'ours'), metadata: { name: 'w', deletionTimestamp: 't' } };
    const facts = nodeFactsOf({
      node: deleting,
      driver: DRIVER,
      vm: vm(false, [['pvc-a', true]]),
      vmi: undefined,
      guestVolumes: GUEST_VOLUMES,
    });
    assert.strictEqual(decideNodeAction(facts).kind, 'none');
  });
});

describe('guest CSI bridge: the node monitor facts', () => {
  it("the VM name: kubelet's node-id annotation for the driver, else the node name", () => {
    const annotated = (value: string): GuestNode => ({
      metadata: { name: 'k8s-worker', annotations: { 'csi.volume.kubernetes.io/nodeid': value } },
    });
    assert.strictEqual(vmNameOf(annotated(JSON.stringify({ [DRIVER]: 'vm-7' })), DRIVER), 'vm-7');
    assert.strictEqual(vmNameOf(annotated(JSON.stringify({ other: 'x' })), DRIVER), 'k8s-worker');
    assert.strictEqual(vmNameOf(annotated('{not json'), DRIVER), 'k8s-worker');
    assert.strictEqual(vmNameOf({ metadata: { name: 'plain' } }, DRIVER), 'plain');
  });

  it('a VM runs only when Ready, Running and with a live instance', () => {
    assert.isTrue(vmRunningOf(vm(true, []), VMI));
    assert.isFalse(vmRunningOf(vm(true, []), undefined));
    assert.isFalse(vmRunningOf(vm(false, []), VMI));
    assert.isFalse(vmRunningOf(undefined, VMI));
    // KubeVirt's status.ready where no Ready condition is written.
    const bare = (ready: boolean): MonitoredVm => ({
      status: { printableStatus: 'Running', ready },
    });
    assert.isTrue(vmRunningOf(bare(true), VMI));
    assert.isFalse(vmRunningOf(bare(false), VMI));
    assert.isFalse(
      vmRunningOf(vm(true, []), { ...VMI, metadata: { name: 'worker-1', deletionTimestamp: 't' } }),
    );
  });

  it("taints: the monitor's added at the end, and only its own removed", () => {
    const others = node('False', 'other').spec?.taints ?? [];
    const added = taintsWith(others, true);
    assert.deepEqual(added.slice(0, others.length), others);
    assert.deepEqual(added[others.length], {
      key: OUT_OF_SERVICE_TAINT,
      value: MONITOR_TAINT_VALUE,
      effect: 'NoExecute',
    });
    assert.deepEqual(taintsWith(added, false), others, "the operator's taint stays");
    assert.lengthOf(taintsWith(taintsWith(added, true), true), others.length + 1, 'never twice');
  });

  it("the guest's volumes: handles of its PVs of the driver", () => {
    const pv = (driver: string, handle: string) => ({
      spec: { csi: { driver, volumeHandle: handle } },
    });
    assert.deepEqual(
      [...guestVolumesOf([pv(DRIVER, 'pvc-a'), pv('other.csi', 'pvc-x'), {}], DRIVER)],
      ['pvc-a'],
    );
  });

  it('one guarded patch drops every released volume from the volumes and the disks', () => {
    const current = vm(false, [
      ['pvc-a', true],
      ['keep', true],
      ['pvc-b', true],
    ]);
    assert.deepEqual(unplugAllOperations(current, ['pvc-a', 'pvc-b']), [
      { op: 'test', path: '/metadata/resourceVersion', value: '11' },
      {
        op: 'replace',
        path: '/spec/template/spec/volumes',
        value: [
          { name: 'rootdisk', persistentVolumeClaim: { claimName: 'root' } },
          { name: 'keep', persistentVolumeClaim: { claimName: 'keep', hotpluggable: true } },
        ],
      },
      {
        op: 'replace',
        path: '/spec/template/spec/domain/devices/disks',
        value: [{ name: 'rootdisk' }, { name: 'keep' }],
      },
    ]);
    assert.deepEqual(unplugAllOperations(current, ['absent']), []);
  });
});
