/**
 * A guest volume's whole life through the driver against a real host API server, with the host
 * storage actor playing Harvester's storage and KubeVirt's hotplug on loop devices (root): create,
 * hotplug, stage (format and mount), publish, grow on the host and in the guest, stats, and back.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import { captureLogger } from '../../support/capture-logger.js';
import { expectRejection } from '../../support/expect-error.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  stageHostScene,
  writeHostKubeconfig,
} from '../../support/guest-csi-bridge/host-scene.js';
import { HostStorageActor } from '../../support/guest-csi-bridge/host-storage-actor.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import {
  createScratch,
  hasCapSysResource,
  sh,
  type Scratch,
} from '../../support/fsresize/loop-device.js';
import { grpcCode } from '../../support/guest-csi-bridge/grpc-code.js';

const MiB = 1024 * 1024;
const mount = (fs_type = 'ext4') => ({
  mount: { fs_type, mount_flags: [] },
  access_mode: { mode: 'SINGLE_NODE_WRITER' },
});
const block = () => ({ block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } });

describe('guest CSI bridge: volume lifecycle on a real host API server and loop devices', function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let dir: string;
  let actor: HostStorageActor;
  let csi: TestDriver;
  const logs = captureLogger('debug');

  before(async () => {
    scratch = await createScratch('voe-csi-lifecycle-');
    dir = await scratch.directory('work');
    await stageHostScene(host.cp.kubeConfig);
    const hostKc = await writeHostKubeconfig(host.cp.kubeConfig, join(dir, 'host.kubeconfig'));
    actor = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
    });
    await actor.start();
    csi = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger);
  });

  after(async () => {
    // The driver first, then what it may have left mounted, then the host's loop devices.
    await csi?.stop();
    await scratch?.cleanup();
    await actor?.stop();
  });

  for (const accessType of ['mount', 'block'] as const) {
    it(`${accessType}: create, hotplug, stage, publish, grow online, unpublish, unplug, delete`, async () => {
      const { client } = csi;
      // ext4 grows online only with CAP_SYS_RESOURCE (containers often drop it); xfs needs CAP_SYS_ADMIN only.
      const fsType = (await hasCapSysResource()) ? 'ext4' : 'xfs';
      const capability = accessType === 'mount' ? mount(fsType) : block();
      const name = `pvc-lifecycle-${accessType}`;
      const created = await client.call<{ volume: { volume_id: string; capacity_bytes: string } }>(
        'Controller',
        'CreateVolume',
        {
          name,
          capacity_range: { required_bytes: String(320 * MiB) },
          volume_capabilities: [capability],
          parameters: { hostStorageClass: 'longhorn' },
        },
      );
      const id = created.volume.volume_id;
      assert.strictEqual(id, name);
      assert.strictEqual(created.volume.capacity_bytes, String(320 * MiB));
      const hostApi = createKubeHostApi(host.cp.kubeConfig, { namespace: GUEST_NAMESPACE });
      const hostPvc = await hostApi.getPvc(id);
      assert.deepStrictEqual(hostPvc?.spec?.accessModes, ['ReadWriteMany']);
      assert.strictEqual(hostPvc?.spec?.volumeMode, 'Block');

      const nodeInfo = await client.call<{ node_id: string }>('Node', 'NodeGetInfo');
      assert.strictEqual(nodeInfo.node_id, GUEST_NODE);
      await client.call('Controller', 'ControllerPublishVolume', {
        volume_id: id,
        node_id: GUEST_NODE,
        volume_capability: capability,
      });
      const vm = await hostApi.getVm(GUEST_NODE);
      assert.deepInclude(vm?.spec?.template?.spec?.volumes ?? [], {
        name: id,
        persistentVolumeClaim: { claimName: id, hotpluggable: true },
      });
      assert.deepInclude(vm?.spec?.template?.spec?.domain?.devices?.disks ?? [], {
        name: id,
        disk: { bus: 'scsi' },
      });
      // Published again: already attached, nothing written.
      await client.call('Controller', 'ControllerPublishVolume', {
        volume_id: id,
        node_id: GUEST_NODE,
        volume_capability: capability,
      });

      const staging = join(dir, `staging-${accessType}`);
      const target = join(dir, `target-${accessType}`, 'volume');
      await client.call('Node', 'NodeStageVolume', {
        volume_id: id,
        staging_target_path: staging,
        volume_capability: capability,
      });
      await client.call('Node', 'NodeStageVolume', {
        volume_id: id,
        staging_target_path: staging,
        volume_capability: capability,
      });
      await client.call('Node', 'NodePublishVolume', {
        volume_id: id,
        staging_target_path: staging,
        target_path: target,
        volume_capability: capability,
      });
      await client.call('Node', 'NodePublishVolume', {
        volume_id: id,
        staging_target_path: staging,
        target_path: target,
        volume_capability: capability,
      });
      const device = actor.deviceOf(id);
      assert.isString(device);
      if (accessType === 'mount') {
        assert.strictEqual(
          (await sh('blkid', ['-o', 'value', '-s', 'TYPE', device!])).trim(),
          fsType,
        );
        assert.isTrue((await stat(target)).isDirectory());
      } else {
        assert.isTrue((await stat(target)).isBlockDevice());
      }

      const before = await client.call<{ usage: Array<{ unit: string; total: string }> }>(
        'Node',
        'NodeGetVolumeStats',
        { volume_id: id, volume_path: target },
      );
      const grown = await client.call<{ capacity_bytes: string; node_expansion_required: boolean }>(
        'Controller',
        'ControllerExpandVolume',
        {
          volume_id: id,
          capacity_range: { required_bytes: String(640 * MiB) },
          volume_capability: capability,
        },
      );
      assert.strictEqual(grown.capacity_bytes, String(640 * MiB));
      assert.strictEqual(grown.node_expansion_required, accessType === 'mount');
      assert.strictEqual((await hostApi.getPvc(id))?.status?.capacity?.['storage'], '640Mi');
      assert.strictEqual(actor.requestWrites(id), 1);

      const expanded = await client.call<{ capacity_bytes: string }>('Node', 'NodeExpandVolume', {
        volume_id: id,
        volume_path: target,
        staging_target_path: staging,
        capacity_range: { required_bytes: String(640 * MiB) },
        volume_capability: capability,
      });
      assert.strictEqual(expanded.capacity_bytes, String(640 * MiB));
      const after = await client.call<{ usage: Array<{ unit: string; total: string }> }>(
        'Node',
        'NodeGetVolumeStats',
        { volume_id: id, volume_path: target },
      );
      const bytes = (usage: Array<{ unit: string; total: string }>) =>
        Number(usage.find((u) => u.unit === 'BYTES')?.total);
      assert.isAbove(bytes(after.usage), bytes(before.usage));
      if (accessType === 'block') assert.strictEqual(bytes(after.usage), 640 * MiB);
      else assert.isAbove(bytes(after.usage), 500 * MiB);

      await client.call('Node', 'NodeUnpublishVolume', { volume_id: id, target_path: target });
      await client.call('Node', 'NodeUnpublishVolume', { volume_id: id, target_path: target });
      assert.isUndefined(await stat(target).catch(() => undefined), 'the target is removed');
      await client.call('Node', 'NodeUnstageVolume', {
        volume_id: id,
        staging_target_path: staging,
      });
      await client.call('Controller', 'ControllerUnpublishVolume', {
        volume_id: id,
        node_id: GUEST_NODE,
      });
      await client.call('Controller', 'ControllerUnpublishVolume', {
        volume_id: id,
        node_id: GUEST_NODE,
      });
      const unplugged = await hostApi.getVm(GUEST_NODE);
      assert.notInclude(
        (unplugged?.spec?.template?.spec?.volumes ?? []).map((v) => v.name),
        id,
      );
      await client.call('Controller', 'DeleteVolume', { volume_id: id });
      await client.call('Controller', 'DeleteVolume', { volume_id: id });
    });
  }

  it('bad requests get the codes the spec names', async () => {
    const { client } = csi;
    await expectRejection(
      client.call('Controller', 'CreateVolume', { volume_capabilities: [mount()] }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    await expectRejection(
      client.call('Controller', 'CreateVolume', { name: 'x' }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    await expectRejection(
      client.call('Controller', 'CreateVolume', {
        name: 'x',
        volume_capabilities: [
          { mount: { fs_type: '' }, access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' } },
        ],
      }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    await expectRejection(
      client.call('Controller', 'ControllerExpandVolume', {
        volume_id: 'missing',
        capacity_range: { required_bytes: '1' },
      }),
      grpcCode(status.NOT_FOUND),
    );
    await expectRejection(
      client.call('Controller', 'ControllerExpandVolume', { volume_id: 'missing' }),
      grpcCode(status.INVALID_ARGUMENT),
    );
    await expectRejection(
      client.call('Controller', 'ValidateVolumeCapabilities', {
        volume_id: 'missing',
        volume_capabilities: [mount()],
      }),
      grpcCode(status.NOT_FOUND),
    );
    await expectRejection(
      client.call('Controller', 'ControllerPublishVolume', {
        volume_id: 'missing',
        node_id: GUEST_NODE,
        volume_capability: mount(),
      }),
      grpcCode(status.NOT_FOUND),
    );
    await expectRejection(
      client.call('Node', 'NodeExpandVolume', { volume_id: 'x', volume_path: '/nonexistent/path' }),
      grpcCode(status.NOT_FOUND),
    );
    await expectRejection(
      client.call('Node', 'NodeGetVolumeStats', { volume_id: 'x' }),
      grpcCode(status.INVALID_ARGUMENT),
    );
  });
});
