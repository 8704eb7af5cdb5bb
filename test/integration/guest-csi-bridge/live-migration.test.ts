/**
 * ControllerPublishVolume during a host live migration of the guest node VM, against a real host
 * API server, with the credentials Harvester generates for a guest cluster: the host storage actor
 * hotplugs, the host migration actor plays KubeVirt's migration and the host's attach-detach
 * controller (host-migration-actor.ts). A publish while the volume's host VolumeAttachments are
 * on another host node than the VMI's waits and answers once the migration settled; one whose
 * deadline comes first is ABORTED (CSI_HOST_ATTACHMENT_ELSEWHERE).
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import type { HostVmi } from '../../../src/guest-csi-bridge/host/host-objects.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import { grpcCode } from '../../support/guest-csi-bridge/grpc-code.js';
import { harvesterGuestKubeConfig } from '../../support/guest-csi-bridge/harvester-credentials.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import { HostMigrationActor } from '../../support/guest-csi-bridge/host-migration-actor.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  stageHostScene,
} from '../../support/guest-csi-bridge/host-scene.js';
import { HostStorageActor } from '../../support/guest-csi-bridge/host-storage-actor.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';

const MiB = 1024 * 1024;
const CAPABILITY = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };
const VMI_REF = {
  group: 'kubevirt.io',
  version: 'v1',
  plural: 'virtualmachineinstances',
  namespace: GUEST_NAMESPACE,
  name: GUEST_NODE,
};

describe('guest CSI bridge: publish during a host live migration', function () {
  this.timeout(120_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let storage: HostStorageActor;
  let migration: HostMigrationActor;
  let csi: TestDriver;
  let volumeId: string;
  let pv: string;
  const logs = captureLogger('info');

  const vmiNode = async (): Promise<string | undefined> =>
    (await requestJson<HostVmi>(host.cp.kubeConfig, { method: 'GET', path: resourcePath(VMI_REF) }))
      .status?.nodeName;
  const publish = (timeoutMs?: number) =>
    csi.client.call(
      'Controller',
      'ControllerPublishVolume',
      { volume_id: volumeId, node_id: GUEST_NODE, volume_capability: CAPABILITY },
      timeoutMs === undefined ? {} : { timeoutMs },
    );

  before(async () => {
    scratch = await createScratch('voe-csi-migration-');
    const dir = await scratch.directory('work');
    await stageHostScene(host.cp.kubeConfig);
    storage = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
      loopDevices: false,
    });
    await storage.start();
    migration = new HostMigrationActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
    });
    await migration.start();
    // Not admin: the guest's ServiceAccount bound as Harvester binds it (its csi-driver role may
    // list VolumeAttachments).
    const guestKc = await harvesterGuestKubeConfig(
      host.cp.kubeConfig,
      GUEST_NAMESPACE,
      'rke2-guest-migration',
    );
    csi = await startTestDriver(guestKc, join(dir, 'by-id'), logs.logger, {
      services: 'controller',
    });
    const created = await csi.client.call<{ volume: { volume_id: string } }>(
      'Controller',
      'CreateVolume',
      {
        name: 'pvc-7d1c0e52-3a4b-4c5d-8e6f-a1b2c3d4e5f6',
        capacity_range: { required_bytes: String(64 * MiB) },
        volume_capabilities: [CAPABILITY],
      },
    );
    volumeId = created.volume.volume_id;
    await publish();
    await storage.settled();
    await migration.settled();
  });

  after(async () => {
    await csi?.stop();
    await migration?.stop();
    await storage?.stop();
    await scratch?.cleanup();
  });

  it('before a migration: the volume is attached on the host node of the VMI, and a publish answers at once', async () => {
    const node = await vmiNode();
    const pvc = await requestJson<{ spec?: { volumeName?: string } }>(host.cp.kubeConfig, {
      method: 'GET',
      path: resourcePath({
        group: '',
        version: 'v1',
        plural: 'persistentvolumeclaims',
        namespace: GUEST_NAMESPACE,
        name: volumeId,
      }),
    });
    pv = pvc.spec?.volumeName ?? '';
    await eventually(
      () => migration.attachmentsOf(pv).some((va) => va.status?.attached === true),
      15_000,
      'the hotplug pod attached',
    );
    assert.deepStrictEqual(
      migration.attachmentsOf(pv).map((va) => [va.spec?.nodeName, va.status?.attached]),
      [[node, true]],
    );
    const started = Date.now();
    await publish();
    assert.isBelow(Date.now() - started, 1_500);
  });

  it('a publish during a migration waits until the VMI is on the target and the source detached, then answers', async () => {
    const source = (await vmiNode()) ?? '';
    await migration.startMigration(GUEST_NODE, 'harvester-2');
    assert.sameMembers(
      migration.attachmentsOf(pv).map((va) => va.spec?.nodeName),
      [source, 'harvester-2'],
      'attached on both host nodes while migrating',
    );
    const started = Date.now();
    let answeredAt: number | undefined;
    const answered = publish(30_000).then(() => {
      answeredAt = Date.now();
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.isUndefined(answeredAt, 'still waiting while the migration runs');
    const completedAt = Date.now();
    await migration.completeMigration(GUEST_NODE);
    await answered;
    assert.isAtLeast(answeredAt!, completedAt, 'answered only after the migration settled');
    assert.isBelow(answeredAt! - started, 15_000);
    assert.strictEqual(await vmiNode(), 'harvester-2');
    assert.deepStrictEqual(
      migration.attachmentsOf(pv).map((va) => va.spec?.nodeName),
      ['harvester-2'],
    );
  });

  it("a publish whose deadline comes first: ABORTED (CSI_HOST_ATTACHMENT_ELSEWHERE), naming the nodes; the attacher's retry after the migration succeeds", async () => {
    await migration.startMigration(GUEST_NODE, 'harvester-3');
    await expectRejection(publish(4_000), (error: unknown) => {
      grpcCode(status.ABORTED)(error);
      assert.match(
        String((error as Error).message),
        /CSI_HOST_ATTACHMENT_ELSEWHERE: .*on harvester-3, another host node than harvester-2.*live migration from harvester-2 to harvester-3/,
      );
      return true;
    });
    await migration.completeMigration(GUEST_NODE);
    await publish(10_000);
    assert.lengthOf(migration.errors, 0, String(migration.errors[0]));
  });
});
