import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isPrimaryMessage,
  isWorkerMessage,
  poolCacheState,
  WORKER_ENV,
  workerSettingsFromEnv,
} from '../../../src/webhook/index.js';

test("worker and primary messages are told apart by their voe: type; prom-client's and anything else are neither", () => {
  for (const type of ['voe:listening', 'voe:caches', 'voe:metrics-request', 'voe:failed']) {
    assert.equal(isWorkerMessage({ type }), true, type);
    assert.equal(isPrimaryMessage({ type }), false, type);
  }
  for (const type of ['voe:pool-caches', 'voe:metrics', 'voe:stop']) {
    assert.equal(isPrimaryMessage({ type }), true, type);
    assert.equal(isWorkerMessage({ type }), false, type);
  }
  for (const other of [
    { type: 'prom-client:getMetricsReq', requestId: 1 },
    { cmd: 'NODE_CLUSTER' },
    null,
    'voe:stop',
    7,
    [],
    { type: 'voe:' },
  ]) {
    assert.equal(isWorkerMessage(other), false, JSON.stringify(other));
    assert.equal(isPrimaryMessage(other), false, JSON.stringify(other));
  }
});

test('the pool is ready when at least one worker serves and every serving worker reported ready caches; names are merged, sorted, once each', () => {
  const ready = { ready: true, unsynced: [], notServed: ['volumes.longhorn.io'] };
  assert.deepEqual(
    poolCacheState([]),
    { ready: false, unsynced: [], notServed: [] },
    'no worker serves',
  );
  assert.deepEqual(
    poolCacheState([ready, undefined]),
    { ready: false, unsynced: [], notServed: ['volumes.longhorn.io'] },
    'a serving worker has not reported',
  );
  assert.deepEqual(poolCacheState([ready, ready]), {
    ready: true,
    unsynced: [],
    notServed: ['volumes.longhorn.io'],
  });
  assert.deepEqual(
    poolCacheState([
      {
        ready: false,
        unsynced: ['virtualmachines.kubevirt.io', 'persistentvolumeclaims'],
        notServed: [],
      },
      { ready: false, unsynced: ['persistentvolumeclaims'], notServed: ['engines.longhorn.io'] },
    ]),
    {
      ready: false,
      unsynced: ['persistentvolumeclaims', 'virtualmachines.kubevirt.io'],
      notServed: ['engines.longhorn.io'],
    },
  );
  // A replacement that syncs its caches before it listens gets no connection: the others' readiness stands, and it is named.
  assert.deepEqual(
    poolCacheState([ready], ['worker 3 (pid 12) starting, replacing worker 1 (pid 10)']),
    {
      ready: true,
      unsynced: [],
      notServed: ['volumes.longhorn.io'],
      notServing: ['worker 3 (pid 12) starting, replacing worker 1 (pid 10)'],
    },
  );
});

test('caches not read yet are merged over the workers like the others, and named only when some are', () => {
  const reading = { ready: true, unsynced: [], notServed: [] };
  const notReading = {
    ready: true,
    unsynced: [],
    notServed: [],
    notRead: ['volumes.longhorn.io in longhorn-system', 'engines.longhorn.io in longhorn-system'],
  };
  assert.deepEqual(poolCacheState([reading, reading]), {
    ready: true,
    unsynced: [],
    notServed: [],
  });
  assert.deepEqual(
    poolCacheState([
      reading,
      notReading,
      { ...notReading, notRead: ['engines.longhorn.io in longhorn-system'] },
    ]),
    {
      ready: true,
      unsynced: [],
      notServed: [],
      notRead: ['engines.longhorn.io in longhorn-system', 'volumes.longhorn.io in longhorn-system'],
    },
    'they do not make the pool unready',
  );
});

test('a worker reads what it serves from VOE_WEBHOOK_WORKER; anything else there is no settings at all', () => {
  const settings = { certFile: '/c/tls.crt', keyFile: '/c/tls.key', host: '127.0.0.1', port: 0 };
  assert.deepEqual(workerSettingsFromEnv({ [WORKER_ENV]: JSON.stringify(settings) }), settings);
  assert.deepEqual(
    workerSettingsFromEnv({ [WORKER_ENV]: JSON.stringify({ ...settings, extra: 1 }) }),
    settings,
  );
  for (const value of [
    undefined,
    '',
    'not json',
    'null',
    '[]',
    JSON.stringify({ ...settings, port: '9443' }),
    JSON.stringify({ certFile: 'a', keyFile: 'b', host: 'h' }),
  ]) {
    assert.equal(
      workerSettingsFromEnv(value === undefined ? {} : { [WORKER_ENV]: value }),
      undefined,
      String(value),
    );
  }
});
