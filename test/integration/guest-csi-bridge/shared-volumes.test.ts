/**
 * Shared (RWX) volumes through the driver against a real host API server that serves Harvester's
 * NetworkFilesystems (test/support/guest-csi-bridge/network-filesystem-crd.ts), with the host
 * storage actor binding and growing PVCs and the share actor playing networkfs-manager and
 * Longhorn's share manager. This host has no NFS client (no `nfs` in /proc/filesystems), so the
 * node's NFS mount itself is left to the guest end-to-end test; here the node's refusal of a share
 * that is not exported.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import { SHARE_NODES_ANNOTATION } from '../../../src/guest-csi-bridge/controller/plan-share.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually, eventuallyValue } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import { grpcCode } from '../../support/guest-csi-bridge/grpc-code.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import { GUEST_NAMESPACE, GUEST_NODE } from '../../support/guest-csi-bridge/host-scene.js';
import type { ShareServer } from '../../support/guest-csi-bridge/host-share-actor.js';
import { startShareHost, type ShareHost } from '../../support/guest-csi-bridge/share-host.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';

const MiB = 1024 * 1024;
const shared = {
  mount: { fs_type: '', mount_flags: [] },
  access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' },
};
/** The address the share manager's Service would have; no NFS traffic reaches it in this test. */
const SHARE_ADDRESS = '10.53.0.9';

/** The share manager's side as far as this test needs it: which volumes are exported, at what size. */
class RecordedShares implements ShareServer {
  readonly sizes = new Map<string, bigint>();
  async start(volume: string, bytes: bigint): Promise<string> {
    this.sizes.set(volume, bytes);
    return SHARE_ADDRESS;
  }
  async grow(volume: string, bytes: bigint): Promise<void> {
    this.sizes.set(volume, bytes);
  }
  async stop(volume: string): Promise<void> {
    this.sizes.delete(volume);
  }
}

describe('guest CSI bridge: shared (RWX) volumes through NetworkFilesystems', function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let dir: string;
  let shareHost: ShareHost;
  const server = new RecordedShares();
  let csi: TestDriver;
  const logs = captureLogger('debug');

  before(async () => {
    scratch = await createScratch('voe-csi-shared-');
    dir = await scratch.directory('work');
    shareHost = await startShareHost(host.cp.kubeConfig, dir, server);
    csi = await startTestDriver(shareHost.driverKubeConfig, shareHost.deviceDirectory, logs.logger);
  });

  after(async () => {
    await csi?.stop();
    await shareHost?.stop();
    await scratch?.cleanup();
  });

  it('create, publish to two nodes, grow on the host only, unpublish, delete', async () => {
    const { client } = csi;
    const hostApi = createKubeHostApi(host.cp.kubeConfig, { namespace: GUEST_NAMESPACE });
    const name = 'pvc-shared-1';
    await client.call('Controller', 'CreateVolume', {
      name,
      capacity_range: { required_bytes: String(64 * MiB) },
      volume_capabilities: [shared],
      parameters: { hostStorageClass: 'longhorn' },
    });
    const pvc = await eventuallyValue(
      () => hostApi.getPvc(name),
      (current) => current?.status?.phase === 'Bound',
      'the host PVC bound',
    );
    assert.strictEqual(pvc?.spec?.volumeMode, 'Filesystem');
    assert.deepStrictEqual(pvc?.spec?.accessModes, ['ReadWriteMany']);
    const pv = pvc?.spec?.volumeName ?? '';

    // A share not exported yet: the node says so with a code kubelet retries.
    await expectRejection(
      client.call('Node', 'NodeStageVolume', {
        volume_id: name,
        staging_target_path: join(dir, 'staging-early'),
        volume_capability: shared,
      }),
      grpcCode(status.UNAVAILABLE),
    );

    for (const node of [GUEST_NODE, 'guest-node-2']) {
      const published = await client.call<{ publish_context: Record<string, string> }>(
        'Controller',
        'ControllerPublishVolume',
        { volume_id: name, node_id: node, volume_capability: shared },
      );
      assert.deepStrictEqual(published.publish_context, {
        shareSource: `${SHARE_ADDRESS}:/${pv}`,
        shareMountOptions: 'vers=4',
      });
    }
    const enabled = await hostApi.getNetworkFilesystem(pv);
    assert.deepInclude(enabled?.spec ?? {}, {
      networkFSName: pv,
      desiredState: 'Enabled',
      provisioner: 'Longhorn',
    });
    assert.deepInclude(enabled?.status ?? {}, {
      state: 'Enabled',
      status: 'Ready',
      endpoint: SHARE_ADDRESS,
    });
    assert.strictEqual(
      enabled?.metadata?.annotations?.[SHARE_NODES_ANNOTATION],
      `${GUEST_NODE},guest-node-2`,
    );
    const vm = await hostApi.getVm(GUEST_NODE);
    assert.notInclude(
      (vm?.spec?.template?.spec?.volumes ?? []).map((v) => v.name),
      name,
      'a share is not hotplugged',
    );

    const expanded = await client.call<{
      capacity_bytes: string;
      node_expansion_required: boolean;
    }>('Controller', 'ControllerExpandVolume', {
      volume_id: name,
      capacity_range: { required_bytes: String(128 * MiB) },
      volume_capability: shared,
    });
    assert.strictEqual(expanded.capacity_bytes, String(128 * MiB));
    assert.isFalse(expanded.node_expansion_required, 'the share grows on the host');
    await eventually(() => server.sizes.get(pv) === BigInt(128 * MiB), 30_000, 'the share grown');

    await client.call('Controller', 'ControllerUnpublishVolume', {
      volume_id: name,
      node_id: GUEST_NODE,
    });
    assert.strictEqual((await hostApi.getNetworkFilesystem(pv))?.spec?.desiredState, 'Enabled');
    await client.call('Controller', 'ControllerUnpublishVolume', {
      volume_id: name,
      node_id: 'guest-node-2',
    });
    const disabled = await eventuallyValue(
      () => hostApi.getNetworkFilesystem(pv),
      (current) => current?.status?.state === 'Disabled',
      'the share disabled',
    );
    assert.strictEqual(disabled?.spec?.desiredState, 'Disabled');
    assert.deepInclude(disabled?.status ?? {}, { status: 'NotReady', endpoint: '' });
    assert.isFalse(server.sizes.has(pv), 'the share manager stopped');

    await client.call('Controller', 'DeleteVolume', { volume_id: name });
    assert.isUndefined(await hostApi.getNetworkFilesystem(pv));
    await client.call('Controller', 'DeleteVolume', { volume_id: name });
    assert.deepStrictEqual(shareHost.shares.errors, []);
  });

  it('refusals: block access, another provisioner', async () => {
    const { client } = csi;
    await expectRejection(
      client.call('Controller', 'CreateVolume', {
        name: 'pvc-shared-block',
        volume_capabilities: [{ block: {}, access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' } }],
      }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    await expectRejection(
      client.call('Controller', 'CreateVolume', {
        name: 'pvc-shared-nfs',
        volume_capabilities: [shared],
        parameters: { hostStorageClass: 'nfs' },
      }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    const hostApi = createKubeHostApi(host.cp.kubeConfig, { namespace: GUEST_NAMESPACE });
    assert.isUndefined(await hostApi.getPvc('pvc-shared-nfs'));
  });
});
