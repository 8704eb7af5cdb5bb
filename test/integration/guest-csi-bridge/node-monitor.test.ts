/**
 * voe csi's node monitor against a real API server that plays both clusters: the guest's Nodes,
 * PersistentVolumes and the monitor's Lease (read and written with the guest chart's controller
 * ServiceAccount and the RBAC the chart renders for it), the host's VM and VMI of the guest node
 * (with the credentials Harvester generates for a guest cluster). Two replicas elect one leader.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Node,
} from '@kubernetes/client-node';
import { KINDS, type StagedCluster } from '../../../src/demo/staged-cluster.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import {
  startNodeMonitor,
  type NodeMonitor,
} from '../../../src/guest-csi-bridge/monitor/node-monitor.js';
import {
  MONITOR_TAINT_VALUE,
  OUT_OF_SERVICE_TAINT,
} from '../../../src/guest-csi-bridge/monitor/node-monitor-facts.js';
import { captureLogger } from '../../support/capture-logger.js';
import { ensureNamespaces } from '../../support/charts/cluster.js';
import { useHelm, type Helm } from '../../support/charts/render.js';
import { eventually } from '../../support/eventually.js';
import { chartControllerKubeConfig } from '../../support/guest-csi-bridge/chart-controller-credentials.js';
import { chartGuestObjects } from '../../support/guest-cluster/chart-guest-objects.js';
import { harvesterGuestKubeConfig } from '../../support/guest-csi-bridge/harvester-credentials.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  guestNodeVmi,
  stageHostScene,
} from '../../support/guest-csi-bridge/host-scene.js';

const DRIVER = 'driver.harvesterhci.io';
/** The guest's release namespace (the Lease's). */
const RELEASE_NS = 'kube-system';
/** The guest node's Kubernetes name; its VM on the host is GUEST_NODE (kubelet's node-id annotation). */
const NODE = 'k8s-worker-1';
const VOLUME = 'pvc-5f0e2a8c-9d4b-4f3e-8a1c-2b7d6e9f0a13';
const BY_HAND = 'data-hotplugged-in-harvester';

describe("guest CSI bridge: the node monitor releases a dead guest node's volumes", function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  const logs = captureLogger('debug');
  let cluster: StagedCluster;
  let helm: Helm;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  const monitors: NodeMonitor[] = [];

  const readNode = (): Promise<V1Node> => core.readNode({ name: NODE });
  const taintOf = async (value: string) =>
    ((await readNode()).spec?.taints ?? []).find(
      (t) => t.key === OUT_OF_SERVICE_TAINT && t.value === value && t.effect === 'NoExecute',
    );
  /**
   * The Ready condition as the node lifecycle controller writes it when kubelet stops posting
   * (tryUpdateNodeHealth in pkg/controller/nodelifecycle: Unknown, NodeStatusUnknown), or as
   * kubelet posts it again (setNodeReadyCondition: True, KubeletReady).
   */
  const setReady = (ready: boolean) =>
    core.patchNodeStatus(
      {
        name: NODE,
        body: {
          status: {
            conditions: [
              ready
                ? {
                    type: 'Ready',
                    status: 'True',
                    reason: 'KubeletReady',
                    message: 'kubelet is posting ready status',
                  }
                : {
                    type: 'Ready',
                    status: 'Unknown',
                    reason: 'NodeStatusUnknown',
                    message: 'Kubelet stopped posting node status.',
                  },
            ],
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
  /** The node's taint keys but node.kubernetes.io/not-ready (the API server's TaintNodesByCondition). */
  const otherTaints = async (): Promise<string[]> =>
    ((await readNode()).spec?.taints ?? [])
      .map((t) => t.key)
      .filter((key) => key !== 'node.kubernetes.io/not-ready');
  const vmVolumes = async (): Promise<{ volumes: string[]; disks: string[] }> => {
    const vm = (await custom.getNamespacedCustomObject({
      ...KINDS.vms,
      namespace: GUEST_NAMESPACE,
      name: GUEST_NODE,
    })) as {
      spec: {
        template: {
          spec: {
            volumes: Array<{ name: string }>;
            domain: { devices: { disks: Array<{ name: string }> } };
          };
        };
      };
    };
    return {
      volumes: vm.spec.template.spec.volumes.map((v) => v.name),
      disks: vm.spec.template.spec.domain.devices.disks.map((d) => d.name),
    };
  };

  before(async () => {
    const admin: KubeConfig = host.cp.kubeConfig;
    cluster = await stageHostScene(admin);
    helm = await useHelm();
    await ensureNamespaces(admin, [RELEASE_NS]);
    core = admin.makeApiClient(CoreV1Api);
    custom = admin.makeApiClient(CustomObjectsApi);
    // The guest: a node registered by kubelet (its node-id annotation from the node plugin's
    // NodeGetInfo), Ready, and a PV of the driver.
    await core.createNode({
      body: {
        metadata: {
          name: NODE,
          annotations: {
            'csi.volume.kubernetes.io/nodeid': JSON.stringify({ [DRIVER]: GUEST_NODE }),
          },
        },
        spec: { taints: [{ key: 'example.com/dedicated', value: 'db', effect: 'NoSchedule' }] },
      },
    });
    await setReady(true);
    await core.createPersistentVolume({
      body: {
        metadata: { name: VOLUME },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          csi: { driver: DRIVER, volumeHandle: VOLUME },
        },
      },
    });
    // The host: the volume hotplugged into the node's VM by voe csi, another one by hand.
    await cluster.patchCustom(
      KINDS.vms,
      GUEST_NODE,
      {
        spec: {
          template: {
            spec: {
              volumes: [
                { name: 'rootdisk', persistentVolumeClaim: { claimName: `${GUEST_NODE}-root` } },
                { name: VOLUME, persistentVolumeClaim: { claimName: VOLUME, hotpluggable: true } },
                {
                  name: BY_HAND,
                  persistentVolumeClaim: { claimName: BY_HAND, hotpluggable: true },
                },
              ],
              domain: {
                devices: {
                  disks: [
                    { name: 'rootdisk', disk: { bus: 'virtio' } },
                    { name: VOLUME, disk: { bus: 'scsi' } },
                    { name: BY_HAND, disk: { bus: 'scsi' } },
                  ],
                },
              },
            },
          },
        },
      },
      GUEST_NAMESPACE,
    );
    const guest = await chartControllerKubeConfig(
      admin,
      (await chartGuestObjects(helm)).controllerAccess,
    );
    const hostKc = await harvesterGuestKubeConfig(admin, GUEST_NAMESPACE, 'guest-csi');
    for (const identity of ['replica-a', 'replica-b'])
      monitors.push(
        startNodeMonitor({
          guest,
          hostKubeConfig: hostKc,
          host: createKubeHostApi(hostKc),
          driverName: DRIVER,
          leaseNamespace: RELEASE_NS,
          identity,
          recheckMs: 500,
          leaseDurationMs: 4_000,
          renewDeadlineMs: 3_000,
          retryPeriodMs: 500,
          log: logs.logger,
        }),
      );
  });

  after(async () => {
    await Promise.all(monitors.map((m) => m.stop()));
    await helm?.cleanup();
  });

  it('one replica leads', async () => {
    await eventually(() => monitors.filter((m) => m.isLeader()).length === 1, 30_000, 'one leader');
  });

  it('a healthy node is left alone', async () => {
    await eventually(
      () => logs.lines().some((l) => l['node'] === NODE && l['why'] === 'the node VM runs'),
      30_000,
      'the node judged',
    );
    assert.isUndefined(await taintOf(MONITOR_TAINT_VALUE));
    assert.include((await vmVolumes()).volumes, VOLUME);
  });

  it("its VMI deleted and the node not Ready: tainted out of service, then the guest's volume unplugged from the VM, a volume hotplugged by hand left", async () => {
    await custom.deleteNamespacedCustomObject({
      ...KINDS.vmis,
      namespace: GUEST_NAMESPACE,
      name: GUEST_NODE,
    });
    await setReady(false);
    await eventually(
      async () => (await taintOf(MONITOR_TAINT_VALUE)) !== undefined,
      30_000,
      'the out-of-service taint',
    );
    await eventually(
      async () => !(await vmVolumes()).volumes.includes(VOLUME),
      30_000,
      'the volume unplugged from the VM',
    );
    const after = await vmVolumes();
    assert.deepEqual(after.volumes, ['rootdisk', BY_HAND]);
    assert.deepEqual(after.disks, ['rootdisk', BY_HAND]);
    // The API server's own not-ready taint (TaintNodesByCondition) aside, the node's taints kept.
    assert.deepEqual(await otherTaints(), ['example.com/dedicated', OUT_OF_SERVICE_TAINT]);
  });

  it('back (the VM runs, the node Ready): its own taint removed', async () => {
    await cluster.createCustom(KINDS.vmis, guestNodeVmi());
    await setReady(true);
    await eventually(
      async () => (await taintOf(MONITOR_TAINT_VALUE)) === undefined,
      30_000,
      'the taint removed',
    );
    assert.deepEqual(await otherTaints(), ['example.com/dedicated']);
  });

  it("an operator's out-of-service taint stays", async () => {
    const node = await readNode();
    await core.replaceNode({
      name: NODE,
      body: {
        ...node,
        spec: {
          ...node.spec,
          taints: [
            ...(node.spec?.taints ?? []),
            { key: OUT_OF_SERVICE_TAINT, value: 'nodeshutdown', effect: 'NoExecute' },
          ],
        },
      },
    });
    const judged = logs.lines().length;
    await eventually(
      () =>
        logs
          .lines()
          .slice(judged)
          .some((l) => l['node'] === NODE && l['why'] === 'the node VM runs'),
      30_000,
      'the node judged again',
    );
    assert.isDefined(await taintOf('nodeshutdown'));
  });

  it('the leader stops: the other replica takes over', async () => {
    const leader = monitors.find((m) => m.isLeader());
    assert.isDefined(leader);
    await leader!.stop();
    await eventually(
      () => monitors.some((m) => m !== leader && m.isLeader()),
      30_000,
      'a new leader',
    );
  });
});
