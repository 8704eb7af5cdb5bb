/**
 * The node service on loop devices (root), against a real host API server and the host storage
 * actor: NodeExpandVolume waits for the device to show the new size (rescanning a SCSI disk when
 * it does not), then grows the filesystem through src/fsresize; a block volume's size is only
 * checked; staging grows a filesystem that was grown while not mounted.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import type { ScsiRescanner } from '../../../src/guest-csi-bridge/node/scsi-rescanner.js';
import { captureLogger } from '../../support/capture-logger.js';
import { onCleanup } from '../../support/cleanup.js';
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
import type { KubeConfig } from '@kubernetes/client-node';

const MiB = 1024 * 1024;
const block = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };

describe('guest CSI bridge: node expansion on loop devices', function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let dir: string;
  let hostKc: KubeConfig;
  let actor: HostStorageActor;
  let csi: TestDriver;
  let fsType: 'ext4' | 'xfs';
  const logs = captureLogger('info');

  before(async () => {
    scratch = await createScratch('voe-csi-node-');
    dir = await scratch.directory('work');
    await stageHostScene(host.cp.kubeConfig);
    hostKc = await writeHostKubeconfig(host.cp.kubeConfig, join(dir, 'host.kubeconfig'));
    actor = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
    });
    await actor.start();
    csi = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger, {
      nodeTimeouts: { growMs: 3_000 },
    });
    // ext4 grows online only with CAP_SYS_RESOURCE (containers often drop it); xfs needs CAP_SYS_ADMIN only.
    fsType = (await hasCapSysResource()) ? 'ext4' : 'xfs';
  });

  after(async () => {
    await csi?.stop();
    await scratch?.cleanup();
    await actor?.stop();
  });

  const mount = () => ({
    mount: { fs_type: fsType, mount_flags: [] },
    access_mode: { mode: 'SINGLE_NODE_WRITER' },
  });

  /** A volume made, hotplugged, staged and published on this node; unpublished and deleted after the test. */
  async function publishedVolume(
    name: string,
    capability: object,
    bytes = 320 * MiB,
  ): Promise<{ id: string; staging: string; target: string }> {
    const { client } = csi;
    const { volume } = await client.call<{ volume: { volume_id: string } }>(
      'Controller',
      'CreateVolume',
      {
        name,
        capacity_range: { required_bytes: String(bytes) },
        volume_capabilities: [capability],
      },
    );
    const id = volume.volume_id;
    const staging = await scratch.directory(`staging-${name}`);
    const target = join(dir, `target-${name}`);
    await client.call('Controller', 'ControllerPublishVolume', {
      volume_id: id,
      node_id: GUEST_NODE,
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
    onCleanup(async () => {
      await client.call('Node', 'NodeUnpublishVolume', { volume_id: id, target_path: target });
      await client.call('Node', 'NodeUnstageVolume', {
        volume_id: id,
        staging_target_path: staging,
      });
      await client.call('Controller', 'ControllerUnpublishVolume', {
        volume_id: id,
        node_id: GUEST_NODE,
      });
      await client.call('Controller', 'DeleteVolume', { volume_id: id });
    });
    return { id, staging, target };
  }

  const filesystemBytes = async (path: string): Promise<number> => {
    const fs = await statfs(path);
    return fs.blocks * fs.bsize;
  };

  it('grows the mounted filesystem once the device shows the new size', async () => {
    const { id, target, staging } = await publishedVolume('pvc-node-fs', mount());
    const before = await filesystemBytes(target);
    await csi.client.call('Controller', 'ControllerExpandVolume', {
      volume_id: id,
      capacity_range: { required_bytes: String(640 * MiB) },
      volume_capability: mount(),
    });
    const answer = await csi.client.call<{ capacity_bytes: string }>('Node', 'NodeExpandVolume', {
      volume_id: id,
      volume_path: target,
      staging_target_path: staging,
      capacity_range: { required_bytes: String(640 * MiB) },
      volume_capability: mount(),
    });
    assert.strictEqual(answer.capacity_bytes, String(640 * MiB));
    const after = await filesystemBytes(target);
    assert.isAbove(after, before + 250 * MiB, `${before} -> ${after}`);
    // Again (kubelet retries): nothing to do, same answer.
    const again = await csi.client.call<{ capacity_bytes: string }>('Node', 'NodeExpandVolume', {
      volume_id: id,
      volume_path: target,
      capacity_range: { required_bytes: String(640 * MiB) },
    });
    assert.strictEqual(again.capacity_bytes, String(640 * MiB));
    assert.strictEqual(await filesystemBytes(target), after);
  });

  it('a block volume: the size is checked, nothing else is done', async () => {
    const { id, target } = await publishedVolume('pvc-node-block', block);
    await csi.client.call('Controller', 'ControllerExpandVolume', {
      volume_id: id,
      capacity_range: { required_bytes: String(512 * MiB) },
      volume_capability: block,
    });
    const answer = await csi.client.call<{ capacity_bytes: string }>('Node', 'NodeExpandVolume', {
      volume_id: id,
      volume_path: target,
      capacity_range: { required_bytes: String(512 * MiB) },
      volume_capability: block,
    });
    assert.strictEqual(answer.capacity_bytes, String(512 * MiB));
    assert.strictEqual((await sh('blockdev', ['--getsize64', target])).trim(), String(512 * MiB));
  });

  it('a device that does not show the size in time answers UNAVAILABLE (kubelet retries)', async () => {
    const { id, target } = await publishedVolume('pvc-node-slow', mount());
    await expectRejection(
      csi.client.call('Node', 'NodeExpandVolume', {
        volume_id: id,
        volume_path: target,
        capacity_range: { required_bytes: String(2048 * MiB) },
        volume_capability: mount(),
      }),
      (error: unknown) => {
        const e = error as { code: number; details: string };
        assert.strictEqual(e.code, status.UNAVAILABLE, e.details);
        assert.match(
          e.details,
          /^CSI_DEVICE_NOT_GROWN: device \/dev\/loop\d+ of volume pvc-node-slow shows 320Mi, not the 2Gi asked for/,
        );
        return true;
      },
    );
  });

  it('rescans a SCSI disk that does not show its new size by itself', async () => {
    const calls: string[] = [];
    // A disk whose capacity change the kernel only reads on a rescan: growing it is what the rescan reveals.
    const disk: { reveal?: () => Promise<void> } = {};
    const rescanner: ScsiRescanner = {
      async rescan(path) {
        calls.push(path);
        await disk.reveal?.();
        return true;
      },
    };
    const withRescan = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger, {
      services: 'node',
      ports: { rescanner },
      nodeTimeouts: { growMs: 5_000 },
    });
    onCleanup(() => withRescan.stop());
    const { id, target } = await publishedVolume('pvc-node-rescan', block);
    const device = actor.deviceOf(id)!;
    const backing = (await sh('losetup', ['--noheadings', '-O', 'BACK-FILE', device])).trim();
    disk.reveal = async () => {
      await sh('truncate', ['-s', String(400 * MiB), backing]);
      await sh('losetup', ['--set-capacity', device]);
    };
    const answer = await withRescan.client.call<{ capacity_bytes: string }>(
      'Node',
      'NodeExpandVolume',
      {
        volume_id: id,
        volume_path: target,
        capacity_range: { required_bytes: String(400 * MiB) },
        volume_capability: block,
      },
    );
    assert.strictEqual(answer.capacity_bytes, String(400 * MiB));
    assert.deepStrictEqual(calls, [device]);
  });

  it('staging grows a filesystem whose device grew while it was not mounted (offline catch-up)', async () => {
    const { id, target, staging } = await publishedVolume('pvc-node-catch-up', mount());
    const { client } = csi;
    await client.call('Node', 'NodeUnpublishVolume', { volume_id: id, target_path: target });
    await client.call('Node', 'NodeUnstageVolume', { volume_id: id, staging_target_path: staging });
    await client.call('Controller', 'ControllerExpandVolume', {
      volume_id: id,
      capacity_range: { required_bytes: String(640 * MiB) },
      volume_capability: mount(),
    });
    await client.call('Node', 'NodeStageVolume', {
      volume_id: id,
      staging_target_path: staging,
      volume_capability: mount(),
    });
    await client.call('Node', 'NodePublishVolume', {
      volume_id: id,
      staging_target_path: staging,
      target_path: target,
      volume_capability: mount(),
    });
    assert.isAbove(await filesystemBytes(target), 550 * MiB);
  });
});
