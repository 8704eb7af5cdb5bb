import { test } from 'node:test';
import assert from 'node:assert/strict';
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
  patchMerge,
  patchStatus,
  replaceObject,
  runWorkers,
  retry,
  ok,
  updateWithRetry,
  WorkQueue,
} from '../../../src/kube/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const kc = cp.kubeConfig;
const core = kc.makeApiClient(CoreV1Api);
const custom = kc.makeApiClient(CustomObjectsApi);

test('patchStatus on a core resource (PVC /status) sets status and leaves spec alone', async () => {
  await core.createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } },
    },
  });
  const ref = {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    namespace: 'default',
    name: 'data',
  };
  const out = await patchStatus<V1PersistentVolumeClaim>(kc, ref, {
    status: { phase: 'Bound', capacity: { storage: '10Gi' } },
  });
  assert.equal(out.status?.capacity?.storage, '10Gi');
  const ignored = await patchStatus<V1PersistentVolumeClaim>(kc, ref, {
    spec: { resources: { requests: { storage: '20Gi' } } },
    status: { capacity: { storage: '11Gi' } },
  });
  assert.equal(ignored.spec?.resources?.requests?.storage, '10Gi', '/status ignores spec');
  assert.equal(ignored.status?.capacity?.storage, '11Gi');
  const labelled = await patchMerge<V1PersistentVolumeClaim>(kc, ref, {
    metadata: { labels: { a: 'b' } },
  });
  assert.equal(labelled.metadata?.labels?.a, 'b');
  assert.equal(labelled.status?.capacity?.storage, '11Gi', 'a main-resource patch keeps status');
  // The API server's own admission answers resize of a statically provisioned claim with 403: passed through, not retried.
  await assert.rejects(
    patchMerge(kc, ref, { spec: { resources: { requests: { storage: '12Gi' } } } }),
    (e: unknown) =>
      apiErrorOf(e)?.code === 403 &&
      /only dynamically provisioned pvc can be resized/.test(apiErrorOf(e)?.message ?? ''),
  );
});

test('patchStatus on a custom resource (/status subresource) with conflict retry on a stale resourceVersion', async () => {
  await custom.createNamespacedCustomObject({
    group: 'kubevirt.io',
    version: 'v1',
    namespace: 'default',
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
    namespace: 'default',
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
  assert.deepEqual(attempts, [1, 2], 'first attempt conflicted (409), second succeeded');
  assert.equal(out.status?.printableStatus, 'Stopped');
  assert.equal(out.metadata.labels?.touched, 'yes');

  await assert.rejects(
    patchStatus(
      kc,
      ref,
      { metadata: { resourceVersion: stale }, status: { printableStatus: 'x' } },
      { retries: 1, minTimeoutMs: 10 },
    ),
    (e: unknown) => isKubeError(e, KubeErrorCode.ConflictRetriesExhausted),
  );
});

test('updateWithRetry re-reads and re-applies the mutation after a 409 from a concurrent writer', async () => {
  await core.createNamespacedConfigMap({
    namespace: 'default',
    body: { metadata: { name: 'counter' }, data: { n: '0' } },
  });
  const ref = {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    namespace: 'default',
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
  assert.equal(calls, 2);
  assert.deepEqual(
    result.data,
    { n: '1', other: 'concurrent' },
    'the concurrent write is kept and ours applied once',
  );
});

test('apiErrorOf/isNotFound work on our requests and on generated-client errors', async () => {
  const ref = {
    group: '',
    version: 'v1',
    plural: 'configmaps',
    namespace: 'default',
    name: 'absent',
  };
  await assert.rejects(getObject(kc, ref), (e: unknown) => isNotFound(e));
  await assert.rejects(
    core.readNamespacedConfigMap({ namespace: 'default', name: 'absent' }),
    (e: unknown) => isNotFound(e),
  );
});

test('work queue: a key whose object is missing retries with growing backoff, then stops once handled', async () => {
  const queue = new WorkQueue<string>({ baseDelayMs: 20, maxDelayMs: 500 });
  const seen: Array<{ found: boolean; requeues: number }> = [];
  let created = false;
  const workers = runWorkers(queue, 2, async (key) => {
    try {
      await core.readNamespacedConfigMap({ namespace: 'default', name: key });
      seen.push({ found: true, requeues: queue.numRequeues(key) });
      return ok();
    } catch (e) {
      if (!isNotFound(e)) throw e;
      seen.push({ found: false, requeues: queue.numRequeues(key) });
      if (seen.length === 4 && !created) {
        created = true;
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: key } },
        });
      }
      return retry();
    }
  });
  queue.add('appears-later');
  const deadline = Date.now() + 20_000;
  while (!seen.some((s) => s.found) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    seen.map((s) => s.requeues),
    [0, 1, 2, 3, 4],
    'one more failure counted per attempt',
  );
  assert.deepEqual(
    seen.map((s) => s.found),
    [false, false, false, false, true],
  );
  assert.equal(queue.numRequeues('appears-later'), 0, 'forgotten after success');
  assert.equal(
    queue.length + queue.delayedCount + queue.processingCount,
    0,
    'nothing scheduled after success',
  );
  await queue.shutDown();
  await workers;
});
