/**
 * The admission caches when they stop following the API server after they synced: a list and
 * watch refused (403, as when RBAC is revoked; through test/support/fault-proxy.ts in front of the
 * real API server) and the real kube-apiserver restarted under a running `voe serve --dev`. A cache
 * that may be stale must never let through what the cluster's current state refuses: here a
 * stopped VM started meanwhile, so its NFS disk (a provisioner the Setting does not validate) may
 * no longer grow.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolumeClaim } from '../../../src/model/index.js';
import type { AdmissionRequest, Validator } from '../../../src/admission/validators/validator.js';
import {
  ADMISSION_CACHE_BACKOFF_MAX_MS,
  startAdmissionCaches,
} from '../../../src/host-cache/start-admission-caches.js';
import { createAdmissionValidators } from '../../../src/webhook/create-admission-validators.js';
import { SCENARIO, stageExpansionScenario } from '../../../src/demo/expansion-scenario.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  admissionRequest,
  PVC_KIND,
  PVC_RESOURCE,
  resized,
} from '../../support/webhook/admission-objects.js';
import { captureLogger } from '../../support/capture-logger.js';
import { TestClock } from '../../support/test-clock.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { eventually } from '../../support/eventually.js';
import { resizeThroughApi, type Refusal } from '../../support/webhook/resize-through-api.js';
import { servingUrl, spawnServeDev } from '../../support/webhook/serve-dev-process.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { httpsRequest } from '../../support/webhook/webhook-client.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
await stageExpansionScenario(cluster);
const DISK = SCENARIO.stoppedVmDisk;
const VMS_PATH = '/apis/kubevirt.io/v1/virtualmachines';

async function growReview(to: string): Promise<AdmissionRequest> {
  const claim = (await cluster.core.readNamespacedPersistentVolumeClaim({
    namespace: 'default',
    name: DISK,
  })) as PersistentVolumeClaim;
  return admissionRequest({
    operation: 'UPDATE',
    resource: PVC_RESOURCE,
    kind: PVC_KIND,
    oldObject: claim,
    object: resized(claim, to),
    name: DISK,
    namespace: 'default',
  });
}

const setVm5 = (printableStatus: 'Running' | 'Stopped') =>
  cluster.patchCustomStatus(KINDS.vms, 'vm5', {
    printableStatus,
    ready: printableStatus === 'Running',
  });

describe('admission caches that stop following the API server', () => {
  it('a VM cache whose list and watch are refused after it synced (403): reviews get 500 naming it and why, never a verdict from the stale VM; decided again once a list succeeds', async () => {
    const proxy = await startFaultProxy(cp.kubeConfig);
    const { logger, lines } = captureLogger('info');
    const started = startAdmissionCaches({ kubeConfig: proxy.kubeConfig, logger });
    onCleanup(async () => {
      await started.stop();
      await proxy.close();
    });
    const [pvcResize] = createAdmissionValidators({
      caches: started.caches.admission,
      csiDrivers: started.caches.csiDrivers,
    }) as [Validator];
    await eventually(() => started.ready(), 30_000, 'caches ready');
    assert.strictEqual(
      (await pvcResize.validate(await growReview('11Gi'))).decision,
      'allowed-offline',
      'vm5 is stopped',
    );

    const forbidden =
      'virtualmachines.kubevirt.io is forbidden: User "system:serviceaccount:voe-system:voe-webhook" cannot list resource "virtualmachines" in API group "kubevirt.io" at the cluster scope';
    proxy.inject({ path: VMS_PATH }, { answer: 403, message: forbidden });
    await eventually(
      () => !started.ready(),
      20_000,
      'not ready once the VM watch and list are refused',
    );
    assert.deepStrictEqual(started.unsynced(), ['virtualmachines.kubevirt.io']);
    // KubeVirt starts vm5 meanwhile; the VM cache cannot see it.
    await setVm5('Running');
    // The proxy ended the open watch (a watch that ends at once counts as failed), then the list is refused.
    let stale = await pvcResize.validate(await growReview('11Gi'));
    await eventually(
      async () =>
        /403 Forbidden/.test(
          (stale = await pvcResize.validate(await growReview('11Gi'))).message ?? '',
        ),
      20_000,
      'the 403 named',
    );
    assert.isFalse(stale.allowed);
    assert.strictEqual(stale.code, 500);
    assert.strictEqual(stale.decision, 'cache-out-of-sync');
    assert.match(
      stale.message ?? '',
      new RegExp(
        `^internal error: voe's cache of virtualmachines\\.kubevirt\\.io \\(since \\S+: 403 Forbidden: ${forbidden.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) does not follow the API server now`,
      ),
    );
    const warning = lines().find(
      (l) =>
        l['msg'] ===
        'the cache of virtualmachines.kubevirt.io no longer follows the API server (its list or watch failed): PVC resize and VM reviews are refused with 500 (cache-out-of-sync) until a list succeeds',
    );
    assert.ok(warning, JSON.stringify(lines().map((l) => l['msg'])));
    assert.strictEqual(warning['level'], 40);
    // Logged at the first failure: the proxy ended the open watch at once, before the refused list.
    assert.match(
      String(warning['why']),
      /^(watch closed immediately without events|403 Forbidden: virtualmachines\.kubevirt\.io is forbidden)/,
    );

    proxy.heal();
    await eventually(() => started.ready(), 30_000, 'ready once a list succeeds');
    const fresh = await pvcResize.validate(await growReview('11Gi'));
    assert.strictEqual(fresh.code, 422, fresh.message);
    assert.strictEqual(
      fresh.decision,
      'provisioner-not-validated',
      'vm5 runs: judged as a synced cache judges it',
    );
    assert.ok(
      lines().some(
        (l) =>
          l['msg'] ===
          'the cache of virtualmachines.kubevirt.io follows the API server again (listed): reviews are judged from it',
      ),
    );
    await setVm5('Stopped');
  });

  it('voe serve --dev across a kube-apiserver restart: unready while its caches cannot list, no resize admitted from the caches of before, decided again once they listed', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'voe-out-of-sync-'));
    onCleanup(() => rm(certDir, { recursive: true, force: true }));
    const serve = spawnServeDev(cp.kubeconfigPath, [
      '--cert-dir',
      certDir,
      '--webhook-configuration-name',
      'voe-out-of-sync',
    ]);
    onCleanup(() => {
      serve.child.kill('SIGKILL');
    });
    await setVm5('Stopped');
    const { port } = await servingUrl(serve);
    await serve.waitForLog('ValidatingWebhookConfiguration registered');
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const get = async (path: string): Promise<{ status: number; body: string }> =>
      httpsRequest(port, ca, { path, method: 'GET' });
    const notSynced = async (): Promise<number> =>
      Number(/^voe_webhook_caches_not_synced (\d+)$/m.exec((await get('/metrics')).body)?.[1]);
    await eventually(
      async () => (await resizeThroughApi(cluster, DISK, '12Gi')) === undefined,
      20_000,
      'vm5 stopped: admitted',
    );
    assert.strictEqual(await notSynced(), 0);

    await cp.stopApiServer();
    try {
      // Its caches cannot list: it says so, and counts them.
      await eventually(
        async () => (await get('/readyz')).status === 503,
        60_000,
        '/readyz 503 while the API server is away',
      );
      const readyz = await get('/readyz');
      assert.match(
        readyz.body,
        /^not ready: caches not synced \(.*virtualmachines\.kubevirt\.io.*\)$/,
      );
      await eventually(
        async () => (await notSynced()) === 10,
        30_000,
        'every cache counted as not synced',
      );
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    } finally {
      await cp.startApiServer();
    }
    // KubeVirt starts vm5 as soon as the API server is back; then the user grows its NFS disk, again and again.
    await setVm5('Running');
    const answers: Array<Refusal | undefined> = [];
    let size = 13;
    await eventually(
      async () => {
        const answer = await resizeThroughApi(cluster, DISK, `${size++}Gi`);
        answers.push(answer);
        return answer?.code === 422;
      },
      90_000,
      'the growth refused as a synced cache refuses it',
    );
    assert.deepStrictEqual(
      answers.filter((a) => a === undefined),
      [],
      `no growth admitted: ${JSON.stringify(answers)}`,
    );
    for (const answer of answers.slice(0, -1)) {
      assert.strictEqual(answer?.code, 500);
      assert.match(
        answer?.message ?? '',
        /internal error: voe's caches? of .* not follow the API server now|the admission caches are not synced yet/,
      );
    }
    assert.match(
      answers.at(-1)?.message ?? '',
      /PVC_EXPAND: pvc default\/vm5-disk-0-stop1 is not online expandable with its provider/,
    );
    await eventually(async () => (await get('/readyz')).body === 'ok', 30_000, '/readyz ok again');
    assert.strictEqual(await notSynced(), 0);
    const warned = serve
      .logs()
      .filter((l) => /^the cache of .* no longer follows the API server/.test(String(l['msg'])))
      .map((l) => l['resource']);
    assert.ok(warned.includes('virtualmachines.kubevirt.io'), JSON.stringify(warned));
    await setVm5('Stopped');
    assert.deepStrictEqual(await serve.stop('SIGTERM'), { code: 0, signal: null }, serve.stderr());
  });

  it("while the API server does not answer, each admission cache tries to list again at least every 5 s (not the informer's 30 s): a cache that does not follow it refuses every growth", async () => {
    const proxy = await startFaultProxy(cp.kubeConfig);
    const clock = new TestClock();
    // random 1: the top of each jitter range, so each delay is 500 ms * 2^(n-1) up to the cap.
    const started = startAdmissionCaches({ kubeConfig: proxy.kubeConfig, clock, random: () => 1 });
    onCleanup(async () => {
      await started.stop();
      await proxy.close();
    });
    await eventually(() => started.ready(), 30_000, 'caches ready');
    const informers = 10;
    proxy.inject({ path: /^\// }, { answer: 503, message: 'the API server is shutting down' });
    const rounds: number[][] = [];
    for (let round = 1; round <= 8; round++) {
      await eventually(
        () => clock.pendingTimers === informers,
        20_000,
        `every informer waits (round ${round})`,
      );
      const delays = clock.pendingDelays.sort((a, b) => a - b);
      rounds.push(delays);
      assert.ok(!started.ready());
      await clock.advance(Math.max(...delays));
    }
    assert.strictEqual(ADMISSION_CACHE_BACKOFF_MAX_MS, 5_000);
    assert.deepStrictEqual(
      rounds.at(-1),
      new Array(informers).fill(5_000),
      `capped at 5 s: ${JSON.stringify(rounds)}`,
    );
    assert.ok(
      rounds.flat().every((delay) => delay <= 5_000),
      JSON.stringify(rounds),
    );
    proxy.heal();
    await clock.advance(5_000);
    await eventually(() => started.ready(), 30_000, 'ready once the lists pass again');
  });
});
