/**
 * A ReadWriteMany guest volume on two guest nodes, in the guest cluster with the real sidecars
 * (root, the VM lab; run alone, under the lab's lock). The real csi-provisioner provisions it
 * through `voe csi` (a Filesystem-mode ReadWriteMany host PVC); the real csi-attacher publishes it
 * to both nodes (ControllerPublishVolume enables its NetworkFilesystem; the share actor plays
 * networkfs-manager and Longhorn's share manager, whose NFS server is nfs-ganesha on this
 * machine); a kubelet actor per node stages and publishes it through that node's plugin, whose
 * mounts are real kernel NFS mounts in the lab VM (this host's kernel has no NFS client): the lab
 * guest is both nodes, each at its own kubelet directory. Written on one node, read on the other;
 * grown by a guest user through the real csi-resizer (ControllerExpandVolume only: the share
 * grows on the host), and both nodes' mounts show the new size; then released and deleted.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, requestJson, resourcePath } from '../../../src/kube/index.js';
import type { LabVm } from '../../../src/demo/index.js';
import { USER_NETWORK_HOST_ADDRESS } from '../../../src/demo/lab/guest-init.js';
import {
  publishedNodesOf,
  SHARE_SOURCE_KEY,
} from '../../../src/guest-csi-bridge/controller/plan-share.js';
import type { HostNetworkFilesystem } from '../../../src/guest-csi-bridge/host/host-objects.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import { useGuestCluster } from '../../support/guest-cluster/guest-cluster.js';
import { GuestObjects } from '../../support/guest-cluster/guest-objects.js';
import { KubeletActor } from '../../support/guest-cluster/kubelet-actor.js';
import { GUEST_NAMESPACE, GUEST_NODE } from '../../support/guest-csi-bridge/host-scene.js';
import { HostShareActor } from '../../support/guest-csi-bridge/host-share-actor.js';
import { installNetworkFilesystemCrd } from '../../support/guest-csi-bridge/network-filesystem-crd.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { GaneshaShareServer } from '../../support/nfs/ganesha-share-server.js';
import { guestRun, guestStatfsBytes } from '../../support/nfs/guest-nfs-mounter.js';
import { startLabNfsClient, type LabNfsClient } from '../../support/nfs/lab-nfs-client.js';

const MiB = 1024 * 1024;
const WAIT_MS = 120_000;
const SECOND_NODE = 'guest-node-2';
const CLAIM = 'shared';

interface HostPvc {
  spec?: { accessModes?: string[]; volumeMode?: string; volumeName?: string };
}

async function hostGet<T>(
  kc: KubeConfig,
  ref: Parameters<typeof resourcePath>[0],
): Promise<T | undefined> {
  return requestJson<T>(kc, { method: 'GET', path: resourcePath(ref) }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
}

const hostPvc = (kc: KubeConfig, name: string): Promise<HostPvc | undefined> =>
  hostGet(kc, {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    namespace: GUEST_NAMESPACE,
    name,
  });

const hostShare = (kc: KubeConfig, name: string): Promise<HostNetworkFilesystem | undefined> =>
  hostGet(kc, {
    group: 'harvesterhci.io',
    version: 'v1beta1',
    plural: 'networkfilesystems',
    namespace: 'harvester-system',
    name,
  });

describe('guest CSI bridge: an RWX volume on two guest nodes with the real sidecars, over real NFS', function () {
  this.timeout(10 * 60_000);
  const logs = captureLogger('debug');
  let lab: LabNfsClient;
  let vm: LabVm;
  let work: string;
  // The chart's node plugin of each guest node (node service only), mounting in the lab guest.
  let nodeA: TestDriver;
  let nodeB: TestDriver;

  /** Starts both nodes' plugins with the host kubeconfig the guest cluster gives them; node A's socket. */
  async function startNodePlugins(hostKubeConfig: KubeConfig): Promise<string> {
    const { mounter } = lab;
    const deviceDirectory = join(work, 'by-id');
    const start = (nodeId: string): Promise<TestDriver> =>
      startTestDriver(hostKubeConfig, deviceDirectory, logs.logger, {
        services: 'node',
        nodeId,
        ports: { mounter },
      });
    nodeA = await start(GUEST_NODE);
    nodeB = await start(SECOND_NODE);
    return nodeA.socket;
  }

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'voe-rwx-e2e-'));
    lab = await startLabNfsClient();
    vm = lab.vm;
  });

  after(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
    await lab?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  describe('in a guest cluster whose host serves NFS shares', () => {
    const cluster = useGuestCluster({ nodePlugin: startNodePlugins });
    const objects = (): GuestObjects => new GuestObjects(cluster.guest.kubeConfig);
    let scratch: Scratch;
    let server: GaneshaShareServer;
    let shares: HostShareActor;
    let secondKubelet: KubeletActor;
    let pv = '';
    let volumeId = '';
    const pods = { a: { name: 'writer', uid: '' }, b: { name: 'reader', uid: '' } };

    /** Runs `check` until it holds; on a timeout the programs' logs are in the message. */
    async function until(what: string, check: () => Promise<boolean>): Promise<void> {
      try {
        await eventually(check, WAIT_MS, what);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${await cluster.logs()}`, { cause: error });
      }
    }

    /** Each node's pod target path, as its kubelet actor published it. */
    const targets = (): [string, string] => [
      cluster.kubelet.targetPath(pv, pods.a.uid)!,
      secondKubelet.targetPath(pv, pods.b.uid)!,
    ];

    before(async () => {
      const host = cluster.host.kubeConfig;
      scratch = await createScratch('voe-rwx-e2e-');
      server = new GaneshaShareServer({ scratch, clientAddress: USER_NETWORK_HOST_ADDRESS });
      await installNetworkFilesystemCrd(host);
      shares = new HostShareActor({ kubeConfig: host, server });
      await shares.start();
      const kubeletDir = join(work, 'kubelet-2');
      secondKubelet = new KubeletActor({
        kubeConfig: cluster.guest.kubeConfig,
        nodeName: SECOND_NODE,
        socket: nodeB.socket,
        kubeletDir,
      });
      await secondKubelet.start();
    });

    after(async () => {
      await secondKubelet?.stop();
      await shares?.stop();
      await server?.close();
      await scratch?.cleanup();
    });

    it('is provisioned by csi-provisioner: a Filesystem-mode ReadWriteMany host PVC', async () => {
      await objects().createPvc(CLAIM, '320Mi', 'harvester', undefined, ['ReadWriteMany']);
      await until(
        'the PVC Bound',
        async () => (await objects().pvc(CLAIM)).status?.phase === 'Bound',
      );
      const guestPv = await objects().pvOf(CLAIM);
      pv = guestPv.metadata.name;
      volumeId = guestPv.spec.csi.volumeHandle;
      const claim = await hostPvc(cluster.host.kubeConfig, volumeId);
      assert.deepStrictEqual(claim?.spec?.accessModes, ['ReadWriteMany']);
      assert.strictEqual(claim?.spec?.volumeMode, 'Filesystem');
    });

    it('is attached to both nodes by csi-attacher and mounted over NFS in the guest on each', async () => {
      pods.a.uid = (await objects().createPod(pods.a.name, CLAIM)).metadata.uid;
      pods.b.uid = (await objects().createPod(pods.b.name, CLAIM, SECOND_NODE)).metadata.uid;
      await until('both nodes published', async () => targets().every(Boolean));
      const attachments = await objects().attachmentsOf(pv);
      assert.sameMembers(
        attachments.map((va) => va.spec.nodeName),
        [GUEST_NODE, SECOND_NODE],
      );
      for (const va of attachments) {
        assert.isTrue(va.status?.attached, va.metadata.name);
        assert.include(va.status?.attachmentMetadata?.[SHARE_SOURCE_KEY], ':/');
      }
      const hostPv = (await hostPvc(cluster.host.kubeConfig, volumeId))?.spec?.volumeName ?? '';
      const share = await hostShare(cluster.host.kubeConfig, hostPv);
      assert.strictEqual(share?.spec?.desiredState, 'Enabled');
      assert.sameMembers(publishedNodesOf(share), [GUEST_NODE, SECOND_NODE]);
      const mounts = await guestRun(vm, '/bin/cat', ['/proc/mounts']);
      const source = `${USER_NETWORK_HOST_ADDRESS}:/${hostPv}`;
      for (const staging of [cluster.kubelet.stagingPath(pv), secondKubelet.stagingPath(pv)])
        assert.match(mounts, new RegExp(`^${source} ${staging} nfs4 `, 'm'));
      for (const target of targets())
        assert.match(mounts, new RegExp(`^${source} ${target} nfs4 `, 'm'));
    });

    it('is written on one node and read on the other', async () => {
      const [a, b] = targets();
      // The path is the shell's argument, never part of its script.
      await guestRun(vm, '/bin/sh', [
        '-c',
        'echo written-on-node-a > "$1"',
        'sh',
        join(a, 'hello'),
      ]);
      assert.strictEqual(
        (await guestRun(vm, '/bin/cat', [join(b, 'hello')])).trim(),
        'written-on-node-a',
      );
    });

    it('grows through csi-resizer without NodeExpandVolume, and both nodes see the new size', async () => {
      const before = await guestStatfsBytes(vm, targets()[0]);
      await objects().request(CLAIM, '640Mi');
      await until(
        'the PV at 640Mi (csi-resizer)',
        async () => (await objects().pv(pv)).spec.capacity.storage === '640Mi',
      );
      // node_expansion_required false: external-resizer (expand_and_recover.go expandAndRecover,
      // then markOverallExpansionAsFinished) writes the PVC's capacity and clears its resize
      // status itself; each kubelet finds it done and calls no NodeExpandVolume.
      await until('the PVC capacity at 640Mi', async () => {
        const pvc = await objects().pvc(CLAIM);
        return (
          pvc.status?.capacity?.storage === '640Mi' &&
          pvc.status.allocatedResourceStatuses === undefined
        );
      });
      for (const target of targets())
        await until(`${target} in the guest grown`, async () => {
          const bytes = await guestStatfsBytes(vm, target);
          return bytes > before + 256 * MiB;
        });
      assert.strictEqual(cluster.kubelet.nodeExpansions.get(pv) ?? 0, 0);
      assert.strictEqual(secondKubelet.nodeExpansions.get(pv) ?? 0, 0);
    });

    it('is released and deleted: mounts gone, detached, share disabled, host objects removed', async () => {
      const hostPv = (await hostPvc(cluster.host.kubeConfig, volumeId))?.spec?.volumeName ?? '';
      const paths = [
        ...targets(),
        cluster.kubelet.stagingPath(pv)!,
        secondKubelet.stagingPath(pv)!,
      ];
      for (const pod of [pods.a, pods.b]) await objects().deletePod(pod.name);
      for (const pod of [pods.a, pods.b])
        await until(`pod ${pod.name} gone (its node tore the volume down)`, () =>
          objects().gone('pod', pod.name),
        );
      const mounts = await guestRun(vm, '/bin/cat', ['/proc/mounts']);
      for (const path of paths) assert.notInclude(mounts, ` ${path} `);
      await until(
        'the VolumeAttachments gone (csi-attacher)',
        async () => (await objects().attachmentsOf(pv)).length === 0,
      );
      await until(
        'the share disabled',
        async () =>
          (await hostShare(cluster.host.kubeConfig, hostPv))?.status?.state === 'Disabled',
      );
      await objects().deletePvc(CLAIM);
      await until('the PV gone', () => objects().gone('pv', pv));
      await until(
        'the host PVC and its NetworkFilesystem gone',
        async () =>
          (await hostPvc(cluster.host.kubeConfig, volumeId)) === undefined &&
          (await hostShare(cluster.host.kubeConfig, hostPv)) === undefined,
      );
      assert.deepStrictEqual(shares.errors, []);
    });
  });
});
