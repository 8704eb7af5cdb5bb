/**
 * Snapshots and restores through the driver against a real host API server with the snapshot
 * CRDs (external-snapshotter's client module), the host storage actor playing the host's storage,
 * snapshot-controller and csi-snapshotter: CreateSnapshot, ListSnapshots, CreateVolume from a
 * snapshot and DeleteSnapshot, with the spec's codes.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  HOST_SNAPSHOT_CLASS,
  stageHostScene,
  stageHostSnapshotClass,
  UNVALIDATED_CLASS,
  writeHostKubeconfig,
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

describe('guest CSI bridge: snapshots and restores on a real host API server', function () {
  this.timeout(120_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let actor: HostStorageActor;
  let csi: TestDriver;
  let hostApi: HostApi;
  const logs = captureLogger('debug');

  before(async () => {
    scratch = await createScratch('voe-csi-snapshots-');
    const dir = await scratch.directory('work');
    await stageHostScene(host.cp.kubeConfig);
    await stageHostSnapshotClass(host.cp.kubeConfig);
    const hostKc = await writeHostKubeconfig(host.cp.kubeConfig, join(dir, 'host.kubeconfig'));
    actor = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
      loopDevices: false,
      snapshots: true,
    });
    await actor.start();
    csi = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger);
    hostApi = createKubeHostApi(host.cp.kubeConfig, { namespace: GUEST_NAMESPACE });
  });

  after(async () => {
    await csi?.stop();
    await actor?.stop();
    await scratch?.cleanup();
  });

  const createVolume = async (
    name: string,
    extra: Record<string, unknown> = {},
    parameters: Record<string, string> = { hostStorageClass: 'longhorn' },
  ): Promise<{ volume: { volume_id: string; capacity_bytes: string; content_source?: unknown } }> =>
    csi.client.call('Controller', 'CreateVolume', {
      name,
      capacity_range: { required_bytes: String(64 * MiB) },
      volume_capabilities: [block],
      parameters,
      ...extra,
    });

  const snapshot = async (
    name: string,
    source: string,
    parameters: Record<string, string> = { hostSnapshotClass: HOST_SNAPSHOT_CLASS },
  ): Promise<Snapshot> => createSnapshot(csi.client, name, source, parameters);

  /** CreateSnapshot again until the host reports it ready, as csi-snapshotter does. */
  const readySnapshot = async (name: string, source: string): Promise<Snapshot> =>
    readyCsiSnapshot(csi.client, name, source, { hostSnapshotClass: HOST_SNAPSHOT_CLASS });

  it('announces CREATE_DELETE_SNAPSHOT and LIST_SNAPSHOTS', async () => {
    const answer = await csi.client.call<{ capabilities: Array<{ rpc: { type: string } }> }>(
      'Controller',
      'ControllerGetCapabilities',
    );
    const types = answer.capabilities.map((c) => c.rpc.type);
    assert.includeMembers(types, ['CREATE_DELETE_SNAPSHOT', 'LIST_SNAPSHOTS']);
  });

  it('CreateSnapshot makes a host VolumeSnapshot of the host PVC, labelled as Harvester labels it, and answers it ready once the host says so', async () => {
    const { volume } = await createVolume('pvc-snap-source-1');
    const first = await snapshot('snapshot-one', volume.volume_id);
    assert.strictEqual(first.snapshot_id, 'snapshot-one');
    assert.strictEqual(first.source_volume_id, volume.volume_id);
    assert.isNotNull(first.creation_time);
    const hostSnapshot = await hostApi.getVolumeSnapshot('snapshot-one');
    assert.deepStrictEqual(hostSnapshot?.spec, {
      source: { persistentVolumeClaimName: volume.volume_id },
      volumeSnapshotClassName: HOST_SNAPSHOT_CLASS,
    });
    assert.deepInclude(hostSnapshot?.metadata?.labels ?? {}, {
      'harvesterhci.io/snapHostSC': 'longhorn',
      'harvesterhci.io/snapHostVolumeMode': 'Block',
    });
    const ready = await readySnapshot('snapshot-one', volume.volume_id);
    assert.strictEqual(ready.size_bytes, String(64 * MiB));
  });

  it("without the parameter takes the class csi-driver-config names for the PVC's provisioner", async () => {
    const { volume } = await createVolume('pvc-snap-source-2');
    await eventually(
      async () => (await hostApi.getPvc(volume.volume_id))?.status?.phase === 'Bound',
      30_000,
      'the host PVC bound',
    );
    await snapshot('snapshot-by-setting', volume.volume_id, {});
    const hostSnapshot = await hostApi.getVolumeSnapshot('snapshot-by-setting');
    assert.strictEqual(hostSnapshot?.spec?.volumeSnapshotClassName, HOST_SNAPSHOT_CLASS);
  });

  const refusals: Array<{
    what: string;
    request: () => Promise<Record<string, unknown>>;
    code: number;
  }> = [
    {
      what: 'no name',
      request: async () => ({ source_volume_id: 'pvc-snap-source-1' }),
      code: status.INVALID_ARGUMENT,
    },
    {
      what: 'no source volume',
      request: async () => ({ name: 'x' }),
      code: status.INVALID_ARGUMENT,
    },
    {
      what: 'a source volume that does not exist',
      request: async () => ({ name: 'snapshot-of-nothing', source_volume_id: 'pvc-none' }),
      code: status.NOT_FOUND,
    },
    {
      what: 'the name of a snapshot of another volume',
      request: async () => {
        await createVolume('pvc-snap-source-3');
        return { name: 'snapshot-one', source_volume_id: 'pvc-snap-source-3' };
      },
      code: status.ALREADY_EXISTS,
    },
    {
      what: "Harvester's backup type on a host that does not serve VolumeRemoteBackups",
      request: async () => ({
        name: 'snapshot-backup',
        source_volume_id: 'pvc-snap-source-1',
        parameters: { type: 'backup' },
      }),
      code: status.FAILED_PRECONDITION,
    },
    {
      what: 'a snapshot type the driver does not know',
      request: async () => ({
        name: 'snapshot-typed',
        source_volume_id: 'pvc-snap-source-1',
        parameters: { type: 'archive' },
      }),
      code: status.INVALID_ARGUMENT,
    },
    {
      what: 'a volume whose provisioner csi-driver-config does not map, and no parameter',
      request: async () => {
        await createVolume('pvc-snap-nfs', {}, { hostStorageClass: UNVALIDATED_CLASS });
        await eventually(
          async () => (await hostApi.getPvc('pvc-snap-nfs'))?.status?.phase === 'Bound',
          30_000,
          'the host PVC bound',
        );
        return { name: 'snapshot-nfs', source_volume_id: 'pvc-snap-nfs' };
      },
      code: status.FAILED_PRECONDITION,
    },
  ];
  for (const refusal of refusals)
    it(`CreateSnapshot with ${refusal.what} is refused with code ${refusal.code}, nothing made`, async () => {
      const request = await refusal.request();
      await expectRejection(
        csi.client.call('Controller', 'CreateSnapshot', request),
        grpcCode(refusal.code),
      );
      const name = request['name'];
      if (typeof name === 'string' && name !== 'snapshot-one')
        assert.isUndefined(await hostApi.getVolumeSnapshot(name));
    });

  it('ListSnapshots filters by snapshot id and source volume, and pages with next_token', async () => {
    const { volume } = await createVolume('pvc-snap-list');
    for (const n of [1, 2, 3]) await snapshot(`snapshot-list-${n}`, volume.volume_id);
    type List = { entries: Array<{ snapshot: Snapshot }>; next_token: string };
    const list = (request: Record<string, unknown>): Promise<List> =>
      csi.client.call<List>('Controller', 'ListSnapshots', request);
    const bySource = await list({ source_volume_id: volume.volume_id });
    assert.deepStrictEqual(
      bySource.entries.map((e) => e.snapshot.snapshot_id),
      ['snapshot-list-1', 'snapshot-list-2', 'snapshot-list-3'],
    );
    const byId = await list({ snapshot_id: 'snapshot-list-2' });
    assert.deepStrictEqual(
      byId.entries.map((e) => e.snapshot.snapshot_id),
      ['snapshot-list-2'],
    );
    assert.lengthOf((await list({ snapshot_id: 'snapshot-none' })).entries, 0);
    const first = await list({ source_volume_id: volume.volume_id, max_entries: 2 });
    assert.lengthOf(first.entries, 2);
    assert.notStrictEqual(first.next_token, '');
    const rest = await list({
      source_volume_id: volume.volume_id,
      starting_token: first.next_token,
    });
    assert.deepStrictEqual(
      rest.entries.map((e) => e.snapshot.snapshot_id),
      ['snapshot-list-3'],
    );
    assert.strictEqual(rest.next_token, '');
    await expectRejection(list({ starting_token: 'not-a-token' }), grpcCode(status.ABORTED));
  });

  it('CreateVolume from a snapshot makes a host PVC whose dataSource is the host VolumeSnapshot; the host binds it once the snapshot is ready', async () => {
    const { volume } = await createVolume('pvc-restore-source');
    const ready = await readySnapshot('snapshot-to-restore', volume.volume_id);
    const source = { snapshot: { snapshot_id: ready.snapshot_id } };
    const restored = await createVolume('pvc-restored', { volume_content_source: source });
    assert.deepStrictEqual(restored.volume.content_source, {
      snapshot: { snapshot_id: 'snapshot-to-restore' },
      type: 'snapshot',
    });
    const pvc = await hostApi.getPvc('pvc-restored');
    assert.deepStrictEqual(pvc?.spec?.dataSource, {
      apiGroup: 'snapshot.storage.k8s.io',
      kind: 'VolumeSnapshot',
      name: 'snapshot-to-restore',
    });
    assert.strictEqual(pvc?.spec?.storageClassName, 'longhorn');
    assert.strictEqual(pvc?.spec?.volumeMode, 'Block');
    await eventually(
      async () => (await hostApi.getPvc('pvc-restored'))?.status?.phase === 'Bound',
      30_000,
      'the restored PVC bound',
    );
    // A retry succeeds; the same name restored from another snapshot, or blank, is ALREADY_EXISTS.
    await createVolume('pvc-restored', { volume_content_source: source });
    await expectRejection(createVolume('pvc-restored'), grpcCode(status.ALREADY_EXISTS));
  });

  const restoreRefusals = [
    {
      what: 'a snapshot that does not exist',
      extra: { volume_content_source: { snapshot: { snapshot_id: 'snapshot-none' } } },
      code: status.NOT_FOUND,
    },
    {
      what: 'a size below the snapshot',
      extra: {
        capacity_range: { required_bytes: String(32 * MiB) },
        volume_content_source: { snapshot: { snapshot_id: 'snapshot-to-restore' } },
      },
      code: status.OUT_OF_RANGE,
    },
    {
      what: 'a volume (a clone)',
      extra: { volume_content_source: { volume: { volume_id: 'pvc-restore-source' } } },
      code: status.INVALID_ARGUMENT,
    },
  ];
  for (const [i, refusal] of restoreRefusals.entries())
    it(`CreateVolume from ${refusal.what} is refused with code ${refusal.code}, nothing made`, async () => {
      const name = `pvc-restore-refused-${i}`;
      await expectRejection(createVolume(name, refusal.extra), grpcCode(refusal.code));
      assert.isUndefined(await hostApi.getPvc(name));
    });

  it("DeleteSnapshot deletes the host VolumeSnapshot (and the host deletes its content); again, or of an id that is no one's, is success", async () => {
    const { volume } = await createVolume('pvc-snap-delete');
    await readySnapshot('snapshot-to-delete', volume.volume_id);
    const content = (await hostApi.getVolumeSnapshot('snapshot-to-delete'))?.status
      ?.boundVolumeSnapshotContentName;
    assert.isString(content);
    await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: 'snapshot-to-delete' });
    await eventually(
      async () => (await hostApi.getVolumeSnapshot('snapshot-to-delete')) === undefined,
      30_000,
      'the host VolumeSnapshot gone',
    );
    await eventually(
      async () =>
        (
          await requestJson(host.cp.kubeConfig, {
            method: 'GET',
            path: resourcePath({
              group: 'snapshot.storage.k8s.io',
              version: 'v1',
              plural: 'volumesnapshotcontents',
            }),
          }).then((list) => (list as { items: Array<{ metadata: { name: string } }> }).items)
        ).every((c) => c.metadata.name !== content),
      30_000,
      'its VolumeSnapshotContent gone',
    );
    await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: 'snapshot-to-delete' });
    await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: 'Not a name' });
    await expectRejection(
      csi.client.call('Controller', 'DeleteSnapshot', {}),
      grpcCode(status.INVALID_ARGUMENT),
    );
  });

  it("DeleteSnapshot leaves a host VolumeSnapshot that is no guest volume's alone", async () => {
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
        metadata: { name: 'host-own-snapshot' },
        spec: {
          source: { persistentVolumeClaimName: 'pvc-snap-source-1' },
          volumeSnapshotClassName: HOST_SNAPSHOT_CLASS,
        },
      },
    });
    await csi.client.call('Controller', 'DeleteSnapshot', { snapshot_id: 'host-own-snapshot' });
    const kept = await hostApi.getVolumeSnapshot('host-own-snapshot');
    assert.isUndefined(kept?.metadata?.deletionTimestamp);
    const listed = await csi.client.call<{ entries: Array<{ snapshot: Snapshot }> }>(
      'Controller',
      'ListSnapshots',
      {},
    );
    assert.notInclude(
      listed.entries.map((e) => e.snapshot.snapshot_id),
      'host-own-snapshot',
    );
  });
});
