/**
 * Drop-in for Harvester's driver, against a real host API server and loop devices (root): the
 * node id found as Harvester's driver finds it, a volume made and published by Harvester's driver
 * (a host PVC named after the guest PV, its device mounted straight at the publish path) served on,
 * the hotplug mode chosen from the host's server-version Setting, and the whole controller flow with
 * the credentials Harvester generates for a guest cluster (not admin), snapshots and restores
 * included (one made by Harvester's driver restores too).
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { KINDS, type StagedCluster } from '../../../src/demo/staged-cluster.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import { discoverNodeId } from '../../../src/guest-csi-bridge/node/discover-node-id.js';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { expectRejection } from '../../support/expect-error.js';
import { eventually } from '../../support/eventually.js';
import { harvesterGuestKubeConfig } from '../../support/guest-csi-bridge/harvester-credentials.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  GUEST_NODE_MAC,
  HOST_SNAPSHOT_CLASS,
  stageHostScene,
  stageHostSnapshotClass,
  VALIDATED_CLASS,
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

const MiB = 1024 * 1024;

describe("guest CSI bridge: a drop-in for Harvester's driver", function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let dir: string;
  let cluster: StagedCluster;
  let actor: HostStorageActor;
  let csi: TestDriver;
  let hostApi: HostApi;
  const logs = captureLogger('info');

  before(async () => {
    scratch = await createScratch('voe-csi-compat-');
    dir = await scratch.directory('work');
    cluster = await stageHostScene(host.cp.kubeConfig);
    await stageHostSnapshotClass(host.cp.kubeConfig);
    const hostKc = await writeHostKubeconfig(host.cp.kubeConfig, join(dir, 'host.kubeconfig'));
    actor = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
      snapshots: true,
    });
    await actor.start();
    csi = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger);
    hostApi = createKubeHostApi(hostKc);
  });

  after(async () => {
    await csi?.stop();
    await scratch?.cleanup();
    await actor?.stop();
  });

  it("node id: the host VMI with one of the guest's MAC addresses, else the node name", async () => {
    assert.strictEqual(
      hostApi.namespace,
      GUEST_NAMESPACE,
      "the host kubeconfig context's namespace",
    );
    const macs = async () => [
      'ee:ee:ee:ee:ee:ee',
      '00:00:00:00:00:00',
      GUEST_NODE_MAC.toUpperCase(),
    ];
    assert.strictEqual(
      await discoverNodeId(hostApi, logs.logger, 'k8s-node-name', macs),
      GUEST_NODE,
    );
    assert.strictEqual(
      await discoverNodeId(hostApi, logs.logger, 'k8s-node-name', async () => [
        '02:00:00:00:00:09',
      ]),
      'k8s-node-name',
    );
  });

  it("a volume made and published by Harvester's driver: grown, expanded on the node and unpublished", async () => {
    const id = 'pvc-4b0c1a52-7d1e-4c8a-9d0e-5a2f3b6c7d8e';
    // What Harvester's CreateVolume wrote: a host PVC named after the guest PV's volume handle.
    await hostApi.createPvc({
      metadata: { name: id },
      spec: {
        accessModes: ['ReadWriteMany'],
        volumeMode: 'Block',
        storageClassName: VALIDATED_CLASS,
        resources: { requests: { storage: '320Mi' } },
      },
    });
    const capability = {
      mount: { fs_type: (await hasCapSysResource()) ? 'ext4' : 'xfs', mount_flags: [] },
      access_mode: { mode: 'SINGLE_NODE_WRITER' },
    };
    const { client } = csi;
    await client.call('Controller', 'ControllerPublishVolume', {
      volume_id: id,
      node_id: GUEST_NODE,
      volume_capability: capability,
    });
    // What Harvester's NodePublishVolume did (its NodeStage does nothing): the device formatted and mounted at the publish path.
    const device = actor.deviceOf(id)!;
    const staging = await scratch.directory('harvester-staging');
    const target = join(dir, 'harvester-target');
    await mkdir(target);
    await sh(
      `mkfs.${capability.mount.fs_type}`,
      capability.mount.fs_type === 'xfs' ? ['-q', device] : ['-q', '-F', device],
    );
    await sh('mount', [device, target]);

    await client.call('Controller', 'ControllerExpandVolume', {
      volume_id: id,
      capacity_range: { required_bytes: String(640 * MiB) },
      volume_capability: capability,
    });
    const answer = await client.call<{ capacity_bytes: string }>('Node', 'NodeExpandVolume', {
      volume_id: id,
      volume_path: target,
      capacity_range: { required_bytes: String(640 * MiB) },
      volume_capability: capability,
    });
    assert.strictEqual(answer.capacity_bytes, String(640 * MiB));
    const fs = await statfs(target);
    assert.isAbove(fs.blocks * fs.bsize, 550 * MiB);
    const stats = await client.call<{ usage: Array<{ unit: string }> }>(
      'Node',
      'NodeGetVolumeStats',
      { volume_id: id, volume_path: target },
    );
    assert.deepStrictEqual(
      stats.usage.map((u) => u.unit),
      ['BYTES', 'INODES'],
    );

    await client.call('Node', 'NodeUnpublishVolume', { volume_id: id, target_path: target });
    assert.isUndefined(await stat(target).catch(() => undefined));
    await client.call('Node', 'NodeUnstageVolume', { volume_id: id, staging_target_path: staging });
    await client.call('Controller', 'ControllerUnpublishVolume', {
      volume_id: id,
      node_id: GUEST_NODE,
    });
    await client.call('Controller', 'DeleteVolume', { volume_id: id });
    await eventually(
      async () => (await hostApi.getPvc(id)) === undefined,
      15_000,
      'the host PVC deleted',
    );
  });

  it("hotplug mode follows the host's server-version: legacy subresources before v1.8", async () => {
    const capability = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };
    const { client } = csi;
    const { volume } = await client.call<{ volume: { volume_id: string } }>(
      'Controller',
      'CreateVolume',
      {
        name: 'pvc-legacy-hotplug',
        capacity_range: { required_bytes: String(64 * MiB) },
        volume_capabilities: [capability],
      },
    );
    await cluster.patchCustom(KINDS.settings, 'server-version', { value: 'v1.7.1' });
    try {
      // The test host serves no subresources.kubevirt.io (KubeVirt's aggregated API): the legacy
      // addvolume call reaches the API server and is answered 404, and the VM's spec is left alone.
      await expectRejection(
        client.call('Controller', 'ControllerPublishVolume', {
          volume_id: volume.volume_id,
          node_id: GUEST_NODE,
          volume_capability: capability,
        }),
        (error: unknown) => {
          const e = error as { code: number; details: string };
          assert.strictEqual(e.code, status.INTERNAL, e.details);
          assert.match(
            e.details,
            /^CSI_HOST_REQUEST_FAILED: addvolume on VirtualMachine guests\/guest-node-1: the host answered 404/,
          );
          return true;
        },
      );
      const vm = await hostApi.getVm(GUEST_NODE);
      assert.notInclude(
        (vm?.spec?.template?.spec?.volumes ?? []).map((v) => v.name),
        volume.volume_id,
      );
    } finally {
      await cluster.patchCustom(KINDS.settings, 'server-version', { value: 'v1.8.0' });
    }
    // v1.8: declarative, through the VM's spec.
    await client.call('Controller', 'ControllerPublishVolume', {
      volume_id: volume.volume_id,
      node_id: GUEST_NODE,
      volume_capability: capability,
    });
    await client.call('Controller', 'ControllerUnpublishVolume', {
      volume_id: volume.volume_id,
      node_id: GUEST_NODE,
    });
    await client.call('Controller', 'DeleteVolume', { volume_id: volume.volume_id });
  });

  it('works with the credentials Harvester generates for a guest cluster (a ServiceAccount bound as Harvester binds it, not admin): create, publish with server-version unreadable (declarative, logged once), grow, unpublish, delete', async () => {
    const guestKc = await harvesterGuestKubeConfig(
      host.cp.kubeConfig,
      GUEST_NAMESPACE,
      'rke2-guest-01',
    );
    const guestHost = createKubeHostApi(guestKc);
    await eventually(
      async () => (await guestHost.getVm(GUEST_NODE)) !== undefined,
      15_000,
      "Harvester's bindings in force",
    );
    // Not admin: Harvester's csi-driver role does not let a guest read server-version.
    await expectRejection(guestHost.getSetting('server-version'), (error: unknown) => {
      assert.strictEqual(
        (error as { details?: Record<string, unknown> }).details?.['httpStatus'],
        403,
      );
      return true;
    });
    const guestLogs = captureLogger('info');
    const guestCsi = await startTestDriver(guestKc, join(dir, 'by-id'), guestLogs.logger, {
      services: 'controller',
    });
    try {
      const capability = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };
      const { client } = guestCsi;
      const { volume } = await client.call<{ volume: { volume_id: string } }>(
        'Controller',
        'CreateVolume',
        {
          name: 'pvc-with-harvester-credentials',
          capacity_range: { required_bytes: String(64 * MiB) },
          volume_capabilities: [capability],
        },
      );
      for (let i = 0; i < 2; i++)
        await client.call('Controller', 'ControllerPublishVolume', {
          volume_id: volume.volume_id,
          node_id: GUEST_NODE,
          volume_capability: capability,
        });
      const vm = await hostApi.getVm(GUEST_NODE);
      assert.include(
        (vm?.spec?.template?.spec?.volumes ?? []).map((v) => v.name),
        volume.volume_id,
        'hotplugged declaratively, through the VM spec',
      );
      const grown = await client.call<{ capacity_bytes: string }>(
        'Controller',
        'ControllerExpandVolume',
        {
          volume_id: volume.volume_id,
          capacity_range: { required_bytes: String(128 * MiB) },
          volume_capability: capability,
        },
      );
      assert.isAtLeast(Number(grown.capacity_bytes), 128 * MiB);
      await client.call('Controller', 'ControllerUnpublishVolume', {
        volume_id: volume.volume_id,
        node_id: GUEST_NODE,
      });
      await client.call('Controller', 'DeleteVolume', { volume_id: volume.volume_id });
      await eventually(
        async () => (await hostApi.getPvc(volume.volume_id)) === undefined,
        15_000,
        'the host PVC deleted',
      );
      const warnings = guestLogs
        .lines()
        .filter((line) => /server-version/.test(String(line['msg'])));
      assert.lengthOf(warnings, 1, 'the unreadable server-version logged once');
    } finally {
      await guestCsi.stop();
    }
  });

  it("snapshots with Harvester's guest credentials: the host class from csi-driver-config, listed, restored, deleted; a snapshot Harvester's driver made restores too", async () => {
    const guestKc = await harvesterGuestKubeConfig(
      host.cp.kubeConfig,
      GUEST_NAMESPACE,
      'rke2-guest-02',
    );
    const guestHost = createKubeHostApi(guestKc);
    await eventually(
      async () => (await guestHost.getVm(GUEST_NODE)) !== undefined,
      15_000,
      "Harvester's bindings in force",
    );
    const guestCsi = await startTestDriver(guestKc, join(dir, 'by-id'), captureLogger().logger, {
      services: 'controller',
    });
    try {
      const { client } = guestCsi;
      const capability = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };
      const createVolume = (name: string, extra: Record<string, unknown> = {}) =>
        client.call<{ volume: { volume_id: string } }>('Controller', 'CreateVolume', {
          name,
          capacity_range: { required_bytes: String(64 * MiB) },
          volume_capabilities: [capability],
          ...extra,
        });
      const { volume } = await createVolume('pvc-snapshot-source-harvester-creds');
      await eventually(
        async () => (await hostApi.getPvc(volume.volume_id))?.status?.phase === 'Bound',
        15_000,
        'the host PVC bound',
      );
      type Answer = { snapshot: { snapshot_id: string; ready_to_use: boolean } };
      const take = () =>
        client.call<Answer>('Controller', 'CreateSnapshot', {
          name: 'snapshot-harvester-creds',
          source_volume_id: volume.volume_id,
        });
      await take();
      await eventually(async () => (await take()).snapshot.ready_to_use, 15_000, 'ready');
      const hostSnapshot = await hostApi.getVolumeSnapshot('snapshot-harvester-creds');
      assert.strictEqual(hostSnapshot?.spec?.volumeSnapshotClassName, HOST_SNAPSHOT_CLASS);
      const listed = await client.call<{ entries: Array<{ snapshot: { snapshot_id: string } }> }>(
        'Controller',
        'ListSnapshots',
        { source_volume_id: volume.volume_id },
      );
      assert.deepStrictEqual(
        listed.entries.map((e) => e.snapshot.snapshot_id),
        ['snapshot-harvester-creds'],
      );
      const restored = await createVolume('pvc-restored-harvester-creds', {
        volume_content_source: { snapshot: { snapshot_id: 'snapshot-harvester-creds' } },
      });
      assert.strictEqual(
        (await hostApi.getPvc(restored.volume.volume_id))?.spec?.dataSource?.name,
        'snapshot-harvester-creds',
      );
      // What Harvester's CreateSnapshot writes: a host VolumeSnapshot named after the guest's, with its two labels.
      await requestJson(host.cp.kubeConfig, {
        method: 'POST',
        path: resourcePath({
          group: 'snapshot.storage.k8s.io',
          version: 'v1',
          plural: 'volumesnapshots',
          namespace: GUEST_NAMESPACE,
        }),
        body: {
          apiVersion: 'snapshot.storage.k8s.io/v1',
          kind: 'VolumeSnapshot',
          metadata: {
            name: 'snapshot-made-by-harvester',
            labels: {
              'harvesterhci.io/snapHostSC': VALIDATED_CLASS,
              'harvesterhci.io/snapHostVolumeMode': 'Block',
            },
          },
          spec: {
            source: { persistentVolumeClaimName: volume.volume_id },
            volumeSnapshotClassName: HOST_SNAPSHOT_CLASS,
          },
        },
      });
      await eventually(
        async () =>
          (await hostApi.getVolumeSnapshot('snapshot-made-by-harvester'))?.status?.readyToUse ===
          true,
        15_000,
        "Harvester's snapshot ready",
      );
      await createVolume('pvc-from-harvester-snapshot', {
        volume_content_source: { snapshot: { snapshot_id: 'snapshot-made-by-harvester' } },
      });
      await eventually(
        async () =>
          (await hostApi.getPvc('pvc-from-harvester-snapshot'))?.status?.phase === 'Bound',
        15_000,
        'the volume restored from it bound',
      );
      for (const id of ['snapshot-harvester-creds', 'snapshot-made-by-harvester'])
        await client.call('Controller', 'DeleteSnapshot', { snapshot_id: id });
      await eventually(
        async () => (await hostApi.getVolumeSnapshot('snapshot-harvester-creds')) === undefined,
        15_000,
        'the host VolumeSnapshot deleted',
      );
    } finally {
      await guestCsi.stop();
    }
  });
});
