/**
 * ControllerExpandVolume against a real host API server with voe's webhook registered (so the
 * host's refusals are the webhook's `PVC_EXPAND` answers) and the host storage actor playing
 * Harvester's storage and hotplug. Guest volumes are hotplugged into the running guest node VM
 * first, so the host judges their growth as online.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { KINDS, type StagedCluster } from '../../../src/demo/staged-cluster.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import { captureLogger } from '../../support/capture-logger.js';
import { expectRejection } from '../../support/expect-error.js';
import { eventually } from '../../support/eventually.js';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  SETTING_NAME,
  stageHostScene,
  UNVALIDATED_CLASS,
  VALIDATED_CLASS,
  writeHostKubeconfig,
} from '../../support/guest-csi-bridge/host-scene.js';
import { HostStorageActor } from '../../support/guest-csi-bridge/host-storage-actor.js';
import { requestCount } from '../../support/guest-csi-bridge/request-count.js';
import { serveHostWebhook } from '../../support/guest-csi-bridge/serve-host-webhook.js';
import { startTestDriver, type TestDriver } from '../../support/guest-csi-bridge/test-driver.js';
import { createScratch, type Scratch } from '../../support/fsresize/loop-device.js';
import type { StartedAdmissionCaches } from '../../../src/host-cache/start-admission-caches.js';

const MiB = 1024n * 1024n;
const GiB = 1024n * MiB;
const capability = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };

interface GrpcError {
  code: number;
  details: string;
}

function refusedWith(code: number, details: RegExp) {
  return (error: unknown) => {
    const e = error as GrpcError;
    assert.strictEqual(e.code, code, e.details);
    assert.match(e.details, details);
    return true;
  };
}

describe('guest CSI bridge: ControllerExpandVolume with the host webhook registered', function () {
  this.timeout(300_000);
  const host = useHostControlPlane();
  let scratch: Scratch;
  let cluster: StagedCluster;
  let actor: HostStorageActor;
  let csi: TestDriver;
  let hostApi: HostApi;
  let caches: StartedAdmissionCaches;
  let hostKubeconfigText: string;
  const logs = captureLogger('debug');

  before(async () => {
    scratch = await createScratch('voe-csi-expand-');
    const dir = await scratch.directory('work');
    cluster = await stageHostScene(host.cp.kubeConfig);
    const hostKc = await writeHostKubeconfig(host.cp.kubeConfig, join(dir, 'host.kubeconfig'));
    hostKubeconfigText = await readFile(join(dir, 'host.kubeconfig'), 'utf8');
    const webhook = await serveHostWebhook(host.cp.kubeConfig, 'voe-csi-expand-test');
    caches = webhook.caches;
    host.beforeStop(() => webhook.serving.stop());
    actor = new HostStorageActor({
      kubeConfig: host.cp.kubeConfig,
      namespace: GUEST_NAMESPACE,
      deviceDirectory: join(dir, 'by-id'),
      loopDevices: false,
    });
    await actor.start();
    csi = await startTestDriver(hostKc, join(dir, 'by-id'), logs.logger, {
      services: 'controller',
    });
    hostApi = createKubeHostApi(host.cp.kubeConfig, { namespace: GUEST_NAMESPACE });
  });

  after(async () => {
    await csi?.stop();
    await actor?.stop();
    await scratch?.cleanup();
  });

  /** A guest volume on `storageClass`, hotplugged into the running guest node VM (the host sees it in use). */
  async function publishedVolume(name: string, storageClass: string, bytes = GiB): Promise<string> {
    const created = await csi.client.call<{ volume: { volume_id: string } }>(
      'Controller',
      'CreateVolume',
      {
        name,
        capacity_range: { required_bytes: String(bytes) },
        volume_capabilities: [capability],
        parameters: { hostStorageClass: storageClass },
      },
    );
    const id = created.volume.volume_id;
    await csi.client.call('Controller', 'ControllerPublishVolume', {
      volume_id: id,
      node_id: GUEST_NODE,
      volume_capability: capability,
    });
    // The webhook decides from its caches: wait until they show the VM using the PVC.
    await eventually(
      () =>
        (
          caches.caches.admission.vms.get(GUEST_NAMESPACE, GUEST_NODE) as
            { spec?: { template?: { spec?: { volumes?: Array<{ name?: string }> } } } } | undefined
        )?.spec?.template?.spec?.volumes?.some((v) => v.name === id) === true,
      15_000,
      'the webhook cache shows the hotplugged volume',
    );
    return id;
  }

  const expand = (
    volumeId: string,
    bytes: bigint,
    extra: Record<string, unknown> = {},
    timeoutMs?: number,
  ) =>
    csi.client.call<{ capacity_bytes: string; node_expansion_required: boolean }>(
      'Controller',
      'ControllerExpandVolume',
      {
        volume_id: volumeId,
        capacity_range: { required_bytes: String(bytes) },
        volume_capability: capability,
        ...extra,
      },
      timeoutMs === undefined ? {} : { timeoutMs },
    );

  it('a validated provider grows: one write of the host request, answered once the host capacity is there', async () => {
    const id = await publishedVolume('pvc-validated-grows', VALIDATED_CLASS);
    actor.hold(id);
    const answer = expand(id, 2n * GiB);
    await eventually(
      async () => (await hostApi.getPvc(id))?.spec?.resources?.requests?.['storage'] === '2Gi',
      15_000,
      'the host request raised',
    );
    actor.release(id);
    const grown = await answer;
    assert.deepStrictEqual(grown, {
      capacity_bytes: String(2n * GiB),
      node_expansion_required: false,
    });
    assert.strictEqual((await hostApi.getPvc(id))?.status?.capacity?.['storage'], '2Gi');
    assert.strictEqual(actor.requestWrites(id), 1);
  });

  it('waits by watch, not by polling: one read of the host PVC however long the host takes', async () => {
    const id = await publishedVolume('pvc-watch-not-poll', VALIDATED_CLASS);
    actor.hold(id);
    const getsBefore = await requestCount(host.cp.kubeConfig, {
      verb: 'GET',
      resource: 'persistentvolumeclaims',
    });
    const answer = expand(id, 2n * GiB);
    // Long enough for a 2 s poller to read the PVC three more times.
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    actor.release(id);
    await answer;
    const gets =
      (await requestCount(host.cp.kubeConfig, {
        verb: 'GET',
        resource: 'persistentvolumeclaims',
      })) - getsBefore;
    assert.strictEqual(gets, 1, 'ControllerExpandVolume read the host PVC once');
    assert.strictEqual(actor.requestWrites(id), 1);
  });

  it('an unvalidated provider answers infeasible (INVALID_ARGUMENT) at once, writes nothing, and again on a retry', async () => {
    const id = await publishedVolume('pvc-unvalidated', UNVALIDATED_CLASS);
    const watchesBefore = await requestCount(host.cp.kubeConfig, {
      verb: 'WATCH',
      resource: 'persistentvolumeclaims',
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      await expectRejection(
        expand(id, 2n * GiB),
        refusedWith(
          status.INVALID_ARGUMENT,
          /^CSI_PROVIDER_NOT_VALIDATED: host PVC guests\/pvc-unvalidated is in use by hp-volume-pvc-unvalidated and its provisioner nfs\.csi\.k8s\.io is not validated .* Setting csi-online-expand-validation/,
        ),
      );
    }
    assert.strictEqual(actor.requestWrites(id), 0, 'the host PVC was never written');
    assert.strictEqual((await hostApi.getPvc(id))?.spec?.resources?.requests?.['storage'], '1Gi');
    assert.strictEqual(
      await requestCount(host.cp.kubeConfig, { verb: 'WATCH', resource: 'persistentvolumeclaims' }),
      watchesBefore,
      'no wait was started',
    );
  });

  it("the webhook's PVC_EXPAND refusal is infeasible too (INVALID_ARGUMENT), and the growth works once the host allows it", async () => {
    const id = await publishedVolume('pvc-webhook-refuses', VALIDATED_CLASS);
    // The host's KubeVirt without ExpandDisks: voe's webhook refuses online growth (the driver does not judge this).
    const version = await cluster.patchCustom(
      KINDS.kubeVirts,
      'kubevirt',
      { spec: { configuration: { developerConfiguration: { featureGates: ['HotplugVolumes'] } } } },
      'harvester-system',
    );
    await eventually(
      () =>
        caches.caches.admission.kubeVirts.get('harvester-system', 'kubevirt')?.metadata
          ?.resourceVersion === version,
      15_000,
      'the webhook cache saw KubeVirt',
    );
    await expectRejection(
      expand(id, 2n * GiB),
      refusedWith(
        status.INVALID_ARGUMENT,
        /^CSI_EXPANSION_REFUSED: the host refused to grow PVC guests\/pvc-webhook-refuses to 2Gi: .*PVC_EXPAND: kubevirt ExpandDisks not included in featureGate/,
      ),
    );
    assert.strictEqual(actor.requestWrites(id), 0);
    const restored = await cluster.patchCustom(
      KINDS.kubeVirts,
      'kubevirt',
      {
        spec: {
          configuration: {
            developerConfiguration: { featureGates: ['HotplugVolumes', 'ExpandDisks'] },
          },
        },
      },
      'harvester-system',
    );
    await eventually(
      () =>
        caches.caches.admission.kubeVirts.get('harvester-system', 'kubevirt')?.metadata
          ?.resourceVersion === restored,
      15_000,
      'the webhook cache saw KubeVirt again',
    );
    assert.strictEqual((await expand(id, 2n * GiB)).capacity_bytes, String(2n * GiB));
  });

  it('validating the provider in the host Setting lets it grow', async () => {
    const id = await publishedVolume('pvc-validated-later', UNVALIDATED_CLASS);
    await expectRejection(
      expand(id, 2n * GiB),
      refusedWith(status.INVALID_ARGUMENT, /CSI_PROVIDER_NOT_VALIDATED/),
    );
    const version = await cluster.patchCustom(KINDS.settings, SETTING_NAME, {
      value: '{"nfs.csi.k8s.io":true}',
    });
    await eventually(
      () =>
        caches.caches.admission.settings.get(undefined, SETTING_NAME)?.metadata?.resourceVersion ===
        version,
      15_000,
      'the webhook cache saw the Setting',
    );
    assert.strictEqual((await expand(id, 2n * GiB)).capacity_bytes, String(2n * GiB));
    assert.strictEqual(actor.requestWrites(id), 1);
    await cluster.patchCustom(KINDS.settings, SETTING_NAME, { value: '' });
  });

  it('a repeated and a concurrent ControllerExpandVolume write the host request once', async () => {
    const id = await publishedVolume('pvc-once', VALIDATED_CLASS);
    actor.hold(id);
    const first = expand(id, 3n * GiB);
    await eventually(
      async () => actor.requestWrites(id) === 1,
      15_000,
      'the first call raised the request',
    );
    // Concurrent: the volume is busy.
    await expectRejection(
      expand(id, 3n * GiB),
      refusedWith(status.ABORTED, /^CSI_OPERATION_PENDING: /),
    );
    actor.release(id);
    assert.strictEqual((await first).capacity_bytes, String(3n * GiB));
    // Repeated (external-resizer retries, kubelet re-syncs): nothing written, success at once.
    for (let i = 0; i < 3; i++)
      assert.strictEqual((await expand(id, 3n * GiB)).capacity_bytes, String(3n * GiB));
    assert.strictEqual(actor.requestWrites(id), 1);
  });

  it('a call that runs out of time is DEADLINE_EXCEEDED; its retry waits on without a second write', async () => {
    const id = await publishedVolume('pvc-deadline', VALIDATED_CLASS);
    actor.hold(id);
    await expectRejection(
      expand(id, 2n * GiB, {}, 2_000),
      refusedWith(status.DEADLINE_EXCEEDED, /CSI_HOST_TIMEOUT|Deadline/),
    );
    assert.strictEqual(actor.requestWrites(id), 1);
    const retry = expand(id, 2n * GiB);
    actor.release(id);
    assert.strictEqual((await retry).capacity_bytes, String(2n * GiB));
    assert.strictEqual(actor.requestWrites(id), 1);
  });

  it("a size inside the host's rounding succeeds without a write", async () => {
    // CreateVolume rounds the host request up to 2 MiB: 1 GiB + 1 byte is 1 GiB + 2 MiB on the host.
    const id = await publishedVolume('pvc-rounding', VALIDATED_CLASS, GiB + 1n);
    assert.strictEqual((await hostApi.getPvc(id))?.status?.capacity?.['storage'], '1026Mi');
    const grown = await expand(id, GiB + MiB);
    // The answer is the host's capacity, not the size asked for.
    assert.strictEqual(grown.capacity_bytes, String(GiB + 2n * MiB));
    assert.strictEqual(actor.requestWrites(id), 0);
  });

  it("the host resizer's infeasible mark is OUT_OF_RANGE, so the guest PVC can be rolled back", async () => {
    const id = await publishedVolume('pvc-host-infeasible', VALIDATED_CLASS);
    actor.refuseGrowth.add(id);
    await expectRejection(
      expand(id, 4n * GiB),
      refusedWith(status.OUT_OF_RANGE, /^CSI_HOST_RESIZE_INFEASIBLE: .*ControllerResizeInfeasible/),
    );
    // Retried: the host request is already there and marked infeasible: answered at once.
    await expectRejection(
      expand(id, 4n * GiB),
      refusedWith(status.OUT_OF_RANGE, /CSI_HOST_RESIZE_INFEASIBLE/),
    );
    assert.strictEqual(actor.requestWrites(id), 1);
    // The host's storage has room again: a larger size is tried (the mark is about 4 GiB) and grows.
    actor.refuseGrowth.delete(id);
    assert.strictEqual((await expand(id, 5n * GiB)).capacity_bytes, String(5n * GiB));
    assert.strictEqual(actor.requestWrites(id), 2);
  });

  it('expand secrets: a per-StorageClass host kubeconfig is used, and no secret reaches the logs or errors', async () => {
    const id = await publishedVolume('pvc-secrets', VALIDATED_CLASS);
    const secrets = { kubeconfig: hostKubeconfigText, note: 'sensitive-value-123' };
    assert.strictEqual((await expand(id, 2n * GiB, { secrets })).capacity_bytes, String(2n * GiB));
    const broken = { kubeconfig: `${hostKubeconfigText.slice(0, 300)}: [sensitive-value-123` };
    await expectRejection(expand(id, 3n * GiB, { secrets: broken }), (error: unknown) => {
      const e = error as GrpcError;
      assert.strictEqual(e.code, status.INVALID_ARGUMENT);
      assert.match(e.details, /^CSI_HOST_CREDENTIALS_INVALID: /);
      assert.notInclude(e.details, 'sensitive-value-123');
      assert.notInclude(e.details, hostKubeconfigText.slice(0, 100));
      return true;
    });
    const text = logs.text();
    assert.include(text, '"method":"ControllerExpandVolume"');
    assert.include(text, '[redacted]');
    assert.notInclude(text, 'sensitive-value-123');
    const user = (
      JSON.parse(hostKubeconfigText) as { users: Array<{ user: Record<string, string> }> }
    ).users[0]!.user;
    assert.notInclude(text, user['client-key-data']!.slice(0, 64));
  });
});
