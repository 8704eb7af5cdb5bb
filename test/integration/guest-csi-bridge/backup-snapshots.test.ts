/**
 * Backup snapshots (the VolumeSnapshotClass parameter `type: backup`) through the driver, with
 * the credentials Harvester generates for a guest cluster, against a real host API server that
 * serves Harvester's VolumeRemoteBackup and VolumeRemoteRestore CRDs (harvester v1.8.0's module)
 * and the snapshot CRDs; the host storage actor plays the host's storage, snapshot-controller,
 * csi-snapshotter and Harvester's backup and restore controllers, on loop devices (needs root).
 * CreateSnapshot, ListSnapshots, CreateVolume from a backup, DeleteVolume and DeleteSnapshot,
 * with the spec's codes; a restored volume holds the data the backup took.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import { harvesterGuestKubeConfig } from '../../support/guest-csi-bridge/harvester-credentials.js';
import { stageHostBackups } from '../../support/guest-csi-bridge/host-backup-scene.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  HOST_SNAPSHOT_CLASS,
  stageHostScene,
  stageHostSnapshotClass,
} from '../../support/guest-csi-bridge/host-scene.js';
import { HostStorageActor } from '../../support/guest-csi-bridge/host-storage-actor.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { grpcCode } from '../../support/guest-csi-bridge/grpc-code.js';
import {
  createSnapshot,
  readySnapshot as readyCsiSnapshot,
  type CsiSnapshot as Snapshot,
} from '../../support/guest-csi-bridge/snapshot-calls.js';

const MiB = 1024 * 1024;
const block = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };
const BACKUP = { type: 'backup' };
const backupId = (name: string): string => `backup:${GUEST_NAMESPACE}/${name}`;

/** Writes `text` on the block device `device` at byte `offset`, through to the device. */
async function writeAt(device: string, offset: number, text: string): Promise<void> {
  const file = await open(device, 'r+');
  try {
    await file.write(Buffer.from(text), 0, text.length, offset);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** The `length` bytes of the block device `device` at byte `offset`, as text. */
async function readAt(device: string, offset: number, length: number): Promise<string> {
  const file = await open(device, 'r');
  try {
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, offset);
    return buffer.toString();
  } finally {
    await file.close();
  }
}

interface Volume {
  volume_id: string;
  capacity_bytes: string;
  content_source?: unknown;
}
type List = { entries: Array<{ snapshot: Snapshot }>; next_token: string };

describe('guest CSI bridge: backup snapshots (Harvester VolumeRemoteBackup/Restore) on a real host API server', function () {
  this.timeout(120_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let actor: HostStorageActor;
  let csi: TestDriver;
  let hostApi: HostApi;
  const logs = captureLogger('debug');

  before(async function () {
    this.timeout(600_000);
    scratch = await createScratch('voe-csi-backups-');
    const dir = await scratch.directory('work');
    const admin = host.cp.kubeConfig;
    await stageHostScene(admin);
    await stageHostSnapshotClass(admin);
    await stageHostBackups(admin);
    actor = new HostStorageActor({
      kubeConfig: admin,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
      snapshots: true,
      remoteBackups: true,
    });
    await actor.start();
    const guestKc = await harvesterGuestKubeConfig(admin, GUEST_NAMESPACE, 'rke2-backups');
    const guestHost = createKubeHostApi(guestKc);
    await eventually(
      () =>
        guestHost.listRemoteBackups('x').then(
          () => true,
          () => false,
        ),
      15_000,
      "Harvester's bindings in force",
    );
    csi = await startTestDriver(guestKc, join(dir, 'by-id'), logs.logger, {
      services: 'controller',
    });
    hostApi = createKubeHostApi(admin, { namespace: GUEST_NAMESPACE });
  });

  after(async () => {
    await csi?.stop();
    await actor?.stop();
    await scratch?.cleanup();
  });

  const createVolume = async (
    name: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ volume: Volume }> =>
    csi.client.call('Controller', 'CreateVolume', {
      name,
      capacity_range: { required_bytes: String(64 * MiB) },
      volume_capabilities: [block],
      parameters: { hostStorageClass: 'longhorn' },
      ...extra,
    });

  const boundVolume = async (name: string): Promise<Volume> => {
    const { volume } = await createVolume(name);
    await eventually(
      async () => (await hostApi.getPvc(volume.volume_id))?.status?.phase === 'Bound',
      30_000,
      `host PVC ${name} bound`,
    );
    return volume;
  };

  const snapshot = async (
    name: string,
    source: string,
    parameters: Record<string, string> = BACKUP,
  ): Promise<Snapshot> => createSnapshot(csi.client, name, source, parameters);

  /** CreateSnapshot again until the host reports it ready, as csi-snapshotter does. */
  const readyBackup = async (name: string, source: string): Promise<Snapshot> =>
    readyCsiSnapshot(csi.client, name, source, BACKUP);

  /** CreateVolume again while it answers ABORTED, as external-provisioner retries. */
  const restoreVolume = async (name: string, snapshotId: string): Promise<Volume> => {
    const request = { volume_content_source: { snapshot: { snapshot_id: snapshotId } } };
    let volume: Volume | undefined;
    await eventually(
      async () => {
        try {
          volume = (await createVolume(name, request)).volume;
          return true;
        } catch (error) {
          if ((error as { code?: number }).code === status.ABORTED) return false;
          throw error;
        }
      },
      30_000,
      `volume ${name} restored`,
    );
    return volume!;
  };

  const list = (request: Record<string, unknown>): Promise<List> =>
    csi.client.call<List>('Controller', 'ListSnapshots', request);

  it("CreateSnapshot with type backup makes a VolumeRemoteBackup of the host PVC as Harvester's driver does, answered ready once Harvester says so", async () => {
    const volume = await boundVolume('pvc-backup-source-1');
    const first = await snapshot('snapshot-backup-1', volume.volume_id);
    assert.strictEqual(first.snapshot_id, backupId('snapshot-backup-1'));
    assert.strictEqual(first.source_volume_id, volume.volume_id);
    assert.isNotNull(first.creation_time);
    const backup = await hostApi.getRemoteBackup('snapshot-backup-1');
    assert.deepStrictEqual(backup?.spec, { type: 'lh', source: volume.volume_id });
    assert.deepInclude(backup?.metadata?.labels ?? {}, {
      'harvesterhci.io/backupSourceVolume': volume.volume_id,
    });
    const ready = await readyBackup('snapshot-backup-1', volume.volume_id);
    assert.strictEqual(ready.size_bytes, String(64 * MiB));
    const done = await hostApi.getRemoteBackup('snapshot-backup-1');
    assert.isTrue(done?.status?.success);
    assert.match(done?.status?.handle ?? '', /^bak:\/\//);
    // Harvester cut it as a VolumeSnapshot of the backup's name, owned by it, not a guest snapshot.
    const cut = await hostApi.getVolumeSnapshot('snapshot-backup-1');
    assert.strictEqual(cut?.metadata?.ownerReferences?.[0]?.kind, 'VolumeRemoteBackup');
    assert.notInclude(
      (await list({})).entries.map((e) => e.snapshot.snapshot_id),
      'snapshot-backup-1',
    );
    // A retry answers the same backup.
    assert.deepStrictEqual(await snapshot('snapshot-backup-1', volume.volume_id), ready);
  });

  const refusals: Array<{
    what: string;
    request: () => Promise<Record<string, unknown>>;
    code: number;
  }> = [
    {
      what: 'the name of a backup of another volume',
      request: async () => {
        const other = await boundVolume('pvc-backup-source-2');
        return { name: 'snapshot-backup-1', source_volume_id: other.volume_id, parameters: BACKUP };
      },
      code: status.ALREADY_EXISTS,
    },
    {
      what: 'a source volume that does not exist',
      request: async () => ({
        name: 'snapshot-backup-of-nothing',
        source_volume_id: 'pvc-none',
        parameters: BACKUP,
      }),
      code: status.NOT_FOUND,
    },
    {
      what: 'a hostSnapshotClass (Harvester chooses the backup class)',
      request: async () => ({
        name: 'snapshot-backup-class',
        source_volume_id: 'pvc-backup-source-1',
        parameters: { ...BACKUP, hostSnapshotClass: HOST_SNAPSHOT_CLASS },
      }),
      code: status.INVALID_ARGUMENT,
    },
    {
      what: 'an unknown type',
      request: async () => ({
        name: 'snapshot-backup-type',
        source_volume_id: 'pvc-backup-source-1',
        parameters: { type: 'archive' },
      }),
      code: status.INVALID_ARGUMENT,
    },
    {
      what: 'the name of a host VolumeSnapshot (Harvester would take it for the backup)',
      request: async () => {
        await snapshot('snapshot-local-1', 'pvc-backup-source-1', {
          hostSnapshotClass: HOST_SNAPSHOT_CLASS,
        });
        return {
          name: 'snapshot-local-1',
          source_volume_id: 'pvc-backup-source-1',
          parameters: BACKUP,
        };
      },
      code: status.ALREADY_EXISTS,
    },
  ];
  for (const refusal of refusals)
    it(`CreateSnapshot of a backup with ${refusal.what} is refused with code ${refusal.code}, nothing made`, async () => {
      const request = await refusal.request();
      await expectRejection(
        csi.client.call('Controller', 'CreateSnapshot', request),
        grpcCode(refusal.code),
      );
      const name = String(request['name']);
      if (name !== 'snapshot-backup-1') assert.isUndefined(await hostApi.getRemoteBackup(name));
    });

  it('CreateSnapshot answers INTERNAL with the message Harvester reports on the backup', async () => {
    // A host PVC restored from a snapshot that never comes stays Pending: its snapshot fails.
    await hostApi.createPvc({
      metadata: { name: 'pvc-never-bound' },
      spec: {
        accessModes: ['ReadWriteMany'],
        volumeMode: 'Block',
        storageClassName: 'longhorn',
        resources: { requests: { storage: '64Mi' } },
        dataSource: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snapshot-never',
        },
      },
    });
    await snapshot('snapshot-backup-failing', 'pvc-never-bound');
    await eventually(
      async () => {
        try {
          await snapshot('snapshot-backup-failing', 'pvc-never-bound');
          return false;
        } catch (error) {
          assert.strictEqual((error as { code?: number }).code, status.INTERNAL);
          assert.match(String((error as Error).message), /CSI_HOST_SNAPSHOT_FAILED.*not bound/);
          return true;
        }
      },
      30_000,
      "Harvester's error on the backup",
    );
  });

  it('ListSnapshots lists backups beside host VolumeSnapshots, filtered by backup id and source volume, in pages', async () => {
    const volume = await boundVolume('pvc-backup-list');
    for (const n of [1, 2]) await snapshot(`snapshot-backup-list-${n}`, volume.volume_id);
    await snapshot('snapshot-local-list', volume.volume_id, {
      hostSnapshotClass: HOST_SNAPSHOT_CLASS,
    });
    const bySource = await list({ source_volume_id: volume.volume_id });
    assert.deepStrictEqual(
      bySource.entries.map((e) => e.snapshot.snapshot_id),
      [
        backupId('snapshot-backup-list-1'),
        backupId('snapshot-backup-list-2'),
        'snapshot-local-list',
      ],
    );
    const byId = await list({ snapshot_id: backupId('snapshot-backup-list-2') });
    assert.deepStrictEqual(
      byId.entries.map((e) => e.snapshot.snapshot_id),
      [backupId('snapshot-backup-list-2')],
    );
    for (const none of [backupId('snapshot-none'), 'backup:elsewhere/snapshot-backup-list-1'])
      assert.lengthOf((await list({ snapshot_id: none })).entries, 0, none);
    const first = await list({ source_volume_id: volume.volume_id, max_entries: 2 });
    assert.lengthOf(first.entries, 2);
    const rest = await list({
      source_volume_id: volume.volume_id,
      starting_token: first.next_token,
    });
    assert.deepStrictEqual(
      rest.entries.map((e) => e.snapshot.snapshot_id),
      ['snapshot-local-list'],
    );
    assert.strictEqual(rest.next_token, '');
  });

  it('CreateVolume from a backup makes a VolumeRemoteRestore named after the volume; Harvester makes its host PVC, which the host binds', async () => {
    const ready = await readyBackup('snapshot-backup-1', 'pvc-backup-source-1');
    const restored = await restoreVolume('pvc-from-backup', ready.snapshot_id);
    assert.strictEqual(restored.volume_id, 'pvc-from-backup');
    assert.strictEqual(restored.capacity_bytes, String(64 * MiB));
    assert.deepStrictEqual(restored.content_source, {
      snapshot: { snapshot_id: ready.snapshot_id },
      type: 'snapshot',
    });
    const restore = await hostApi.getRemoteRestore('pvc-from-backup');
    assert.deepStrictEqual(restore?.spec, {
      type: 'lh',
      from: `${GUEST_NAMESPACE}/snapshot-backup-1`,
    });
    const pvc = await hostApi.getPvc('pvc-from-backup');
    assert.strictEqual(pvc?.metadata?.ownerReferences?.[0]?.uid, restore?.metadata?.uid);
    assert.deepStrictEqual(pvc?.spec?.dataSource, {
      apiGroup: 'snapshot.storage.k8s.io',
      kind: 'VolumeSnapshot',
      name: 'pvc-from-backup',
    });
    await eventually(
      async () => (await hostApi.getRemoteRestore('pvc-from-backup'))?.status?.success === true,
      30_000,
      'the restore done and its PVC bound',
    );
    assert.strictEqual((await hostApi.getPvc('pvc-from-backup'))?.status?.phase, 'Bound');
    // A retry succeeds; the same name blank, or from another backup, is ALREADY_EXISTS.
    assert.deepStrictEqual(await restoreVolume('pvc-from-backup', ready.snapshot_id), restored);
    await expectRejection(createVolume('pvc-from-backup'), grpcCode(status.ALREADY_EXISTS));
    const other = await readyBackup('snapshot-backup-list-1', 'pvc-backup-list');
    await expectRejection(
      createVolume('pvc-from-backup', {
        volume_content_source: { snapshot: { snapshot_id: other.snapshot_id } },
      }),
      grpcCode(status.ALREADY_EXISTS),
    );
  });

  /** ControllerPublishVolume onto the guest node's VM: the host hotplugs it, a loop device here. */
  const attachedDevice = async (volumeId: string): Promise<string> => {
    await csi.client.call('Controller', 'ControllerPublishVolume', {
      volume_id: volumeId,
      node_id: GUEST_NODE,
      volume_capability: block,
      readonly: false,
    });
    const device = actor.deviceOf(volumeId);
    assert.isString(device, `${volumeId} hotplugged`);
    return device!;
  };

  it('a volume restored from a backup holds what was written before the backup, not what was written after', async () => {
    const source = await boundVolume('pvc-backup-data');
    const device = await attachedDevice(source.volume_id);
    const before = 'written before the backup';
    const after = 'written after the backup!';
    await writeAt(device, 0, before);
    await readyBackup('snapshot-backup-data', source.volume_id);
    const handle = (await hostApi.getRemoteBackup('snapshot-backup-data'))?.status?.handle;
    assert.match(handle ?? '', /^bak:\/\//, "Longhorn's handle of a backup");
    await writeAt(device, 0, after);
    await writeAt(device, 32 * MiB, after);
    const restored = await restoreVolume('pvc-from-backup-data', backupId('snapshot-backup-data'));
    await eventually(
      async () =>
        (await hostApi.getRemoteRestore('pvc-from-backup-data'))?.status?.success === true,
      30_000,
      'the restore done',
    );
    const copy = await attachedDevice(restored.volume_id);
    assert.strictEqual(await readAt(copy, 0, before.length), before);
    assert.strictEqual(await readAt(copy, 32 * MiB, after.length), '\0'.repeat(after.length));
    assert.strictEqual(await readAt(device, 0, after.length), after, 'the source kept its writes');
  });

  const restoreRefusals: Array<{
    what: string;
    name: string;
    extra: () => Promise<Record<string, unknown>>;
    code: number;
  }> = [
    {
      what: 'a backup that does not exist',
      name: 'pvc-restore-none',
      extra: async () => ({
        volume_content_source: { snapshot: { snapshot_id: backupId('snapshot-none') } },
      }),
      code: status.NOT_FOUND,
    },
    {
      what: "a backup of another host namespace (not this guest's)",
      name: 'pvc-restore-elsewhere',
      extra: async () => ({
        volume_content_source: {
          snapshot: { snapshot_id: 'backup:default/snapshot-backup-1' },
        },
      }),
      code: status.NOT_FOUND,
    },
    {
      what: 'a size above the backup (Harvester restores the backed-up size)',
      name: 'pvc-restore-bigger',
      extra: async () => ({
        capacity_range: { required_bytes: String(128 * MiB) },
        volume_content_source: { snapshot: { snapshot_id: backupId('snapshot-backup-1') } },
      }),
      code: status.OUT_OF_RANGE,
    },
    {
      what: 'the name of a blank volume',
      name: 'pvc-backup-source-2',
      extra: async () => ({
        volume_content_source: { snapshot: { snapshot_id: backupId('snapshot-backup-1') } },
      }),
      code: status.ALREADY_EXISTS,
    },
  ];
  for (const refusal of restoreRefusals)
    it(`CreateVolume from ${refusal.what} is refused with code ${refusal.code}, no restore made`, async () => {
      await expectRejection(
        createVolume(refusal.name, await refusal.extra()),
        grpcCode(refusal.code),
      );
      assert.isUndefined(await hostApi.getRemoteRestore(refusal.name));
    });

  it('a retry of a restore whose backup was deleted meanwhile answers the restored volume; a larger size is ALREADY_EXISTS', async () => {
    const ready = await readyBackup('snapshot-backup-3', 'pvc-backup-source-1');
    const restored = await restoreVolume('pvc-from-deleted-backup', ready.snapshot_id);
    await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: ready.snapshot_id });
    await eventually(
      async () => (await hostApi.getRemoteBackup('snapshot-backup-3')) === undefined,
      30_000,
      'the backup gone',
    );
    assert.deepStrictEqual(
      await restoreVolume('pvc-from-deleted-backup', ready.snapshot_id),
      restored,
    );
    await expectRejection(
      createVolume('pvc-from-deleted-backup', {
        capacity_range: { required_bytes: String(128 * MiB) },
        volume_content_source: { snapshot: { snapshot_id: ready.snapshot_id } },
      }),
      grpcCode(status.ALREADY_EXISTS),
    );
    await csi.client.call('Controller', 'DeleteVolume', { volume_id: restored.volume_id });
  });

  it("DeleteVolume of a restored volume deletes its VolumeRemoteRestore; Harvester's restore objects go and the backup stays", async () => {
    await csi.client.call('Controller', 'DeleteVolume', { volume_id: 'pvc-from-backup' });
    await eventually(
      async () =>
        (await hostApi.getRemoteRestore('pvc-from-backup')) === undefined &&
        (await hostApi.getPvc('pvc-from-backup')) === undefined &&
        (await hostApi.getVolumeSnapshot('pvc-from-backup')) === undefined,
      30_000,
      'the restore, its PVC and its VolumeSnapshot gone',
    );
    const contents = await requestJson<{ items: Array<{ metadata: { name: string } }> }>(
      host.cp.kubeConfig,
      {
        method: 'GET',
        path: resourcePath({
          group: 'snapshot.storage.k8s.io',
          version: 'v1',
          plural: 'volumesnapshotcontents',
        }),
      },
    );
    assert.notInclude(
      contents.items.map((c) => c.metadata.name),
      'pvc-from-backup',
    );
    assert.isTrue((await hostApi.getRemoteBackup('snapshot-backup-1'))?.status?.success);
    await csi.client.call('Controller', 'DeleteVolume', { volume_id: 'pvc-from-backup' });
  });

  it("DeleteSnapshot of a backup deletes the VolumeRemoteBackup (and Harvester's VolumeSnapshot of it); again, of another namespace, or of a backup that is no guest's, is success and touches nothing", async () => {
    await csi.client.call('Controller', 'DeleteSnapshot', {
      snapshot_id: backupId('snapshot-backup-list-2'),
    });
    await eventually(
      async () =>
        (await hostApi.getRemoteBackup('snapshot-backup-list-2')) === undefined &&
        (await hostApi.getVolumeSnapshot('snapshot-backup-list-2')) === undefined,
      30_000,
      'the backup and its VolumeSnapshot gone',
    );
    await csi.client.call('Controller', 'DeleteSnapshot', {
      snapshot_id: backupId('snapshot-backup-list-2'),
    });
    await hostApi.createRemoteBackup({
      metadata: { name: 'host-own-backup' },
      spec: { type: 'lh', source: 'pvc-backup-list' },
    });
    for (const id of [backupId('host-own-backup'), 'backup:default/snapshot-backup-list-1'])
      await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: id });
    assert.isUndefined(
      (await hostApi.getRemoteBackup('host-own-backup'))?.metadata?.deletionTimestamp,
    );
    assert.isDefined(await hostApi.getRemoteBackup('snapshot-backup-list-1'));
  });
});
