import { describe, it } from 'mocha';
import { assert } from 'chai';
import { eventually } from '../../support/eventually.js';
import { expectRejection } from '../../support/expect-error.js';
import {
  CoreV1Api,
  CustomObjectsApi,
  type V1ConfigMap,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import {
  apiErrorOf,
  getObject,
  isKubeError,
  isNotFound,
  KubeErrorCode,
  replaceObject,
  runWorkers,
  ok,
  updateWithRetry,
  WorkQueue,
} from '../../../src/kube/index.js';
import { patchMerge, patchStatus } from '../../../src/kube/patch.js';
import { retry } from '../../../src/kube/run-workers.js';
import { useSharedControlPlane } from '../../support/shared-control-plane.js';

const { kubeConfig: kc, namespace: ns } = await useSharedControlPlane('patch-and-queue');
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

describe('patches, retries and the work queue against a real API server', () => {
  it('patchStatus on a core resource (PVC /status) sets status and leaves spec alone', async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
      },
    });
    const ref = {
      group: '',
      version: 'v1',
      plural: 'persistentvolumeclaims',
      namespace: ns,
      name: 'data',
    };
    const out = await patchStatus<V1PersistentVolumeClaim>(kc, ref, {
      status: { phase: 'Bound', capacity: { storage: '10Gi' } },
    });
    assert.strictEqual(out.status?.capacity?.storage, '10Gi');
    const ignored = await patchStatus<V1PersistentVolumeClaim>(kc, ref, {
      spec: { resources: { requests: { storage: '20Gi' } } },
      status: { capacity: { storage: '11Gi' } },
    });
    assert.strictEqual(ignored.spec?.resources?.requests?.storage, '10Gi', '/status ignores spec');
    assert.strictEqual(ignored.status?.capacity?.storage, '11Gi');
    const labelled = await patchMerge<V1PersistentVolumeClaim>(kc, ref, {
      metadata: { labels: { a: 'b' } },
    });
    assert.strictEqual(labelled.metadata?.labels?.a, 'b');
    assert.strictEqual(
      labelled.status?.capacity?.storage,
      '11Gi',
      'a main-resource patch keeps status',
    );
    // The API server's own admission answers resize of a statically provisioned claim with 403: passed through, not retried.
    await expectRejection(
      patchMerge(kc, ref, { spec: { resources: { requests: { storage: '12Gi' } } } }),
      (e: unknown) =>
        apiErrorOf(e)?.code === 403 &&
        /only dynamically provisioned pvc can be resized/.test(apiErrorOf(e)?.message ?? ''),
    );
  });

  it('patchStatus on a custom resource (/status subresource) with conflict retry on a stale resourceVersion', async () => {
    await custom.createNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      namespace: ns,
      plural: 'virtualmachines',
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'vm1' },
        spec: { running: false, template: { spec: {} } },
      },
    });
    const ref = {
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'virtualmachines',
      namespace: ns,
      name: 'vm1',
    };
    const stale = (await getObject<{ metadata: { resourceVersion: string } }>(kc, ref)).metadata
      .resourceVersion;
    await patchMerge(kc, ref, { metadata: { labels: { touched: 'yes' } } }); // someone else writes: our RV is now stale
    const attempts: number[] = [];
    const out = await patchStatus<{
      status?: { printableStatus?: string };
      metadata: { labels?: Record<string, string> };
    }>(kc, ref, async (attempt) => {
      attempts.push(attempt);
      const rv =
        attempt === 1
          ? stale
          : (await getObject<{ metadata: { resourceVersion: string } }>(kc, ref)).metadata
              .resourceVersion;
      return { metadata: { resourceVersion: rv }, status: { printableStatus: 'Stopped' } };
    });
    assert.deepStrictEqual(attempts, [1, 2], 'first attempt conflicted (409), second succeeded');
    assert.strictEqual(out.status?.printableStatus, 'Stopped');
    assert.strictEqual(out.metadata.labels?.touched, 'yes');

    await expectRejection(
      patchStatus(
        kc,
        ref,
        { metadata: { resourceVersion: stale }, status: { printableStatus: 'x' } },
        { retries: 1, minTimeoutMs: 10 },
      ),
      (e: unknown) => isKubeError(e, KubeErrorCode.ConflictRetriesExhausted),
    );
  });

  it('updateWithRetry re-reads and re-applies the mutation after a 409 from a concurrent writer', async () => {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'counter' }, data: { n: '0' } },
    });
    const ref = {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      namespace: ns,
      name: 'counter',
    };
    let calls = 0;
    const result = await updateWithRetry<V1ConfigMap>(
      () => getObject<V1ConfigMap>(kc, ref),
      async (cm) => {
        calls++;
        if (calls === 1) await patchMerge(kc, ref, { data: { other: 'concurrent' } });
        return { ...cm, data: { ...cm.data, n: String(Number(cm.data?.n ?? 0) + 1) } };
      },
      (next) => replaceObject<V1ConfigMap>(kc, ref, next),
    );
    assert.strictEqual(calls, 2);
    assert.deepStrictEqual(
      result.data,
      { n: '1', other: 'concurrent' },
      'the concurrent write is kept and ours applied once',
    );
  });

  it('apiErrorOf/isNotFound work on our requests and on generated-client errors', async () => {
    const ref = {
      group: '',
      version: 'v1',
      plural: 'configmaps',
      namespace: ns,
      name: 'absent',
    };
    await expectRejection(getObject(kc, ref), (e: unknown) => isNotFound(e));
    await expectRejection(
      core.readNamespacedConfigMap({ namespace: ns, name: 'absent' }),
      (e: unknown) => isNotFound(e),
    );
  });

  it('work queue: a key whose object is missing retries with growing backoff, then stops once handled', async () => {
    const queue = new WorkQueue<string>({ baseDelayMs: 20, maxDelayMs: 500 });
    const seen: Array<{ found: boolean; requeues: number }> = [];
    let created = false;
    const workers = runWorkers(queue, 2, async (key) => {
      try {
        await core.readNamespacedConfigMap({ namespace: ns, name: key });
        seen.push({ found: true, requeues: queue.numRequeues(key) });
        return ok();
      } catch (e) {
        if (!isNotFound(e)) throw e;
        seen.push({ found: false, requeues: queue.numRequeues(key) });
        if (seen.length === 4 && !created) {
          created = true;
          await core.createNamespacedConfigMap({
            namespace: ns,
            body: { metadata: { name: key } },
          });
        }
        return retry();
      }
    });
    queue.add('appears-later');
    await eventually(() => seen.some((s) => s.found), 20_000).catch(() => undefined);
    assert.deepStrictEqual(
      seen.map((s) => s.requeues),
      [0, 1, 2, 3, 4],
      'one more failure counted per attempt',
    );
    assert.deepStrictEqual(
      seen.map((s) => s.found),
      [false, false, false, false, true],
    );
    assert.strictEqual(queue.numRequeues('appears-later'), 0, 'forgotten after success');
    assert.strictEqual(
      queue.length + queue.delayedCount + queue.processingCount,
      0,
      'nothing scheduled after success',
    );
    await queue.shutDown();
    await workers;
  });
});
