/**
 * A shared (RWX) volume for real (root, the VM lab; run alone, under the lab's lock): the host is a
 * real API server serving Harvester's NetworkFilesystems, with the storage actor binding and
 * growing PVCs and the share actor playing networkfs-manager and Longhorn's share manager, whose
 * NFS server is nfs-ganesha on this machine exporting an xfs filesystem on a loop device. The
 * guest is the lab VM (Debian's kernel with its NFSv4 client, a NIC on QEMU's user-mode network):
 * two node plugins (two guest node ids) stage the volume at two paths of the guest, each a real
 * kernel NFS mount through the guest agent. Written at one, read at the other; grown through
 * ControllerExpandVolume, and both mounts' statfs shows the new size.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LabVm } from '../../../src/demo/index.js';
import { USER_NETWORK_HOST_ADDRESS } from '../../../src/demo/lab/guest-init.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventuallyValue } from '../../support/eventually.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import { GUEST_NODE } from '../../support/guest-csi-bridge/host-scene.js';
import { startShareHost, type ShareHost } from '../../support/guest-csi-bridge/share-host.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { GaneshaShareServer } from '../../support/nfs/ganesha-share-server.js';
import { guestRun, guestStatfsBytes } from '../../support/nfs/guest-nfs-mounter.js';
import { startLabNfsClient, type LabNfsClient } from '../../support/nfs/lab-nfs-client.js';

const MiB = 1024 * 1024;
const SECOND_NODE = 'guest-node-2';
const shared = {
  mount: { fs_type: '', mount_flags: [] },
  access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' },
};

describe('guest CSI bridge: a shared volume over real NFS on two guest nodes', function () {
  this.timeout(600_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let lab: LabNfsClient;
  let vm: LabVm;
  let server: GaneshaShareServer;
  let shareHost: ShareHost;
  let nodeA: TestDriver;
  let nodeB: TestDriver;
  let paths: string;
  const logs = captureLogger('debug');

  before(async () => {
    scratch = await createScratch('voe-csi-nfs-');
    const dir = await scratch.directory('work');
    paths = await mkdtemp(join(tmpdir(), 'voe-rwx-'));
    server = new GaneshaShareServer({ scratch, clientAddress: USER_NETWORK_HOST_ADDRESS });
    shareHost = await startShareHost(host.cp.kubeConfig, dir, server);
    lab = await startLabNfsClient();
    vm = lab.vm;
    const { mounter } = lab;
    const { driverKubeConfig, deviceDirectory } = shareHost;
    nodeA = await startTestDriver(driverKubeConfig, deviceDirectory, logs.logger, {
      ports: { mounter },
    });
    nodeB = await startTestDriver(driverKubeConfig, deviceDirectory, logs.logger, {
      services: 'node',
      nodeId: SECOND_NODE,
      hostKubeConfig: undefined,
      ports: { mounter },
    });
  });

  after(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
    await lab?.stop();
    await shareHost?.stop();
    await server?.close();
    await scratch?.cleanup();
    if (paths) await rm(paths, { recursive: true, force: true });
  });

  it('mounted on two nodes: written on one, read on the other, grown, both see the size', async () => {
    const name = 'pvc-shared-nfs';
    const controller = nodeA.client;
    await controller.call('Controller', 'CreateVolume', {
      name,
      capacity_range: { required_bytes: String(300 * MiB) },
      volume_capabilities: [shared],
      parameters: { hostStorageClass: 'longhorn' },
    });
    const staging = { a: join(paths, 'a', 'staging'), b: join(paths, 'b', 'staging') };
    // Node A reads the share from the host (as Harvester's node plugin does); node B, without
    // host credentials, mounts the export ControllerPublishVolume answered, as kubelet passes it on.
    const contexts = new Map<string, Record<string, string>>();
    for (const node of [GUEST_NODE, SECOND_NODE])
      contexts.set(
        node,
        (await eventuallyValue<Record<string, string> | undefined>(
          () =>
            controller
              .call<{ publish_context: Record<string, string> }>(
                'Controller',
                'ControllerPublishVolume',
                { volume_id: name, node_id: node, volume_capability: shared },
              )
              .then(
                (answer) => answer.publish_context,
                () => undefined,
              ),
          (context) => context !== undefined,
          `published to ${node}`,
          60_000,
        )) ?? {},
      );
    await nodeA.client.call('Node', 'NodeStageVolume', {
      volume_id: name,
      staging_target_path: staging.a,
      volume_capability: shared,
    });
    await nodeB.client.call('Node', 'NodeStageVolume', {
      volume_id: name,
      staging_target_path: staging.b,
      volume_capability: shared,
      publish_context: contexts.get(SECOND_NODE),
    });
    // Staged again: the export is there already.
    await nodeA.client.call('Node', 'NodeStageVolume', {
      volume_id: name,
      staging_target_path: staging.a,
      volume_capability: shared,
    });
    const mounts = await guestRun(vm, '/bin/cat', ['/proc/mounts']);
    for (const path of [staging.a, staging.b])
      assert.match(mounts, new RegExp(`^${USER_NETWORK_HOST_ADDRESS}:/\\S+ ${path} nfs4 `, 'm'));

    await guestRun(vm, '/bin/sh', ['-c', `echo shared-data > ${staging.a}/hello`]);
    assert.strictEqual(
      (await guestRun(vm, '/bin/cat', [join(staging.b, 'hello')])).trim(),
      'shared-data',
    );

    const before = await guestStatfsBytes(vm, staging.a);
    const expanded = await controller.call<{ node_expansion_required: boolean }>(
      'Controller',
      'ControllerExpandVolume',
      {
        volume_id: name,
        capacity_range: { required_bytes: String(600 * MiB) },
        volume_capability: shared,
      },
    );
    assert.isFalse(expanded.node_expansion_required);
    for (const path of [staging.a, staging.b]) {
      const after = await eventuallyValue(
        () => guestStatfsBytes(vm, path),
        (bytes) => bytes > before + 200 * MiB,
        `the share at ${path} grown`,
        60_000,
      );
      assert.isAbove(after, before, `${path} shows the grown share`);
    }

    for (const [client, path] of [
      [nodeA.client, staging.a],
      [nodeB.client, staging.b],
    ] as const)
      await client.call('Node', 'NodeUnstageVolume', {
        volume_id: name,
        staging_target_path: path,
      });
    assert.notInclude(await guestRun(vm, '/bin/cat', ['/proc/mounts']), staging.a);
    for (const node of [GUEST_NODE, SECOND_NODE])
      await controller.call('Controller', 'ControllerUnpublishVolume', {
        volume_id: name,
        node_id: node,
      });
    await controller.call('Controller', 'DeleteVolume', { volume_id: name });
    assert.deepStrictEqual(shareHost.shares.errors, []);
  });
});
