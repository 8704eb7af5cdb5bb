import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection, expectThrow } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { Agent } from 'node:https';
import { execFile } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { readFile } from 'node:fs/promises';
import { Gauge, Registry } from 'prom-client';
import type { Validator } from '../../../src/admission/validators/validator.js';
import { createWebhookServer } from '../../../src/webhook/create-webhook-server.js';
import { WebhookError } from '../../../src/webhook/webhook-error.js';
import { captureLogger } from '../../support/capture-logger.js';
import {
  httpsRequest,
  pvcReview,
  writeServingFiles,
} from '../../support/webhook/webhook-client.js';

const validators: Validator[] = [
  {
    name: 'pvc-resize',
    path: '/validate/pvc-resize',
    validate: (r) =>
      r.name === 'refuse-me'
        ? {
            allowed: false,
            code: 422,
            reason: 'Invalid',
            message: 'PVC_EXPAND: refused for the test',
            decision: 'test-refusal',
            warnings: ['w'.repeat(200)],
          }
        : { allowed: true, decision: 'not-resize' },
  },
  {
    name: 'vm',
    path: '/validate/vm',
    validate: () => {
      throw new Error('boom from the validator');
    },
  },
];

async function start(
  opts: {
    ready?: () => boolean;
    bodyLimitBytes?: number;
    cacheStatus?: () => { unsynced?: string[]; notServed?: string[]; notRead?: string[] };
    handshakeTimeoutMs?: number;
    validators?: Validator[];
    registry?: Registry;
  } = {},
) {
  const files = await writeServingFiles();
  const logs = captureLogger();
  const server = createWebhookServer({
    validators: opts.validators ?? validators,
    tls: { certFile: files.certFile, keyFile: files.keyFile },
    ready: opts.ready ?? (() => true),
    logger: logs.logger,
    ...(opts.bodyLimitBytes ? { bodyLimitBytes: opts.bodyLimitBytes } : {}),
    ...(opts.cacheStatus ? { cacheStatus: opts.cacheStatus } : {}),
    ...(opts.handshakeTimeoutMs ? { handshakeTimeoutMs: opts.handshakeTimeoutMs } : {}),
    ...(opts.registry ? { registry: opts.registry } : {}),
  });
  const address = await server.listen(0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true });
  onCleanup(async () => {
    agent.destroy();
    await server.close();
    await files.cleanup();
  });
  const call = (path: string, body?: unknown, method = 'POST', raw?: string | Buffer) =>
    httpsRequest(address.port, files.ca.certificatePem, {
      path,
      method,
      agent,
      ...(raw !== undefined
        ? { body: raw }
        : body !== undefined
          ? { body: JSON.stringify(body) }
          : {}),
    });
  return { server, address, call, logs, files };
}

it('allowed and refused reviews are answered 200 with the AdmissionReview shape', async () => {
  const { call } = await start();
  const allowed = await call('/validate/pvc-resize', pvcReview('uid-a'));
  assert.strictEqual(allowed.status, 200);
  assert.match(String(allowed.headers['content-type']), /application\/json/);
  assert.deepStrictEqual(allowed.json(), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'uid-a', allowed: true },
  });

  const refused = await call(
    '/validate/pvc-resize',
    pvcReview('uid-b', '10Gi', '20Gi', 'refuse-me'),
  );
  assert.strictEqual(refused.status, 200);
  const body = refused.json() as {
    response: { uid: string; allowed: boolean; status: unknown; warnings: string[] };
  };
  assert.strictEqual(body.response.uid, 'uid-b');
  assert.isFalse(body.response.allowed);
  assert.deepStrictEqual(body.response.status, {
    code: 422,
    message: 'PVC_EXPAND: refused for the test',
    reason: 'Invalid',
    details: {
      causes: [{ reason: 'FieldValueInvalid', message: 'PVC_EXPAND: refused for the test' }],
    },
  });
  assert.strictEqual(body.response.warnings[0]?.length, 120);
});

it('a validator that throws is a 500 refusal, and the server keeps serving', async () => {
  const { call, logs } = await start();
  const res = await call('/validate/vm', pvcReview('uid-c'));
  assert.strictEqual(res.status, 200);
  const body = res.json() as {
    response: {
      uid: string;
      allowed: boolean;
      status: { code: number; reason: string; message: string };
    };
  };
  assert.strictEqual(body.response.uid, 'uid-c');
  assert.isFalse(body.response.allowed);
  assert.strictEqual(body.response.status.code, 500);
  assert.strictEqual(body.response.status.reason, 'InternalError');
  assert.match(body.response.status.message, /vm failed.*boom from the validator/);
  assert.strictEqual((await call('/validate/pvc-resize', pvcReview('uid-d'))).status, 200);
  assert.ok(
    logs
      .lines()
      .some(
        (l) => l['level'] === 50 && l['webhook'] === 'vm' && String(l['error']).includes('boom'),
      ),
  );
});

it('malformed input is 400 with a Status message; oversized 413; unknown path 404; wrong method 405', async () => {
  const { call } = await start({ bodyLimitBytes: 64 * 1024 });
  const cases: Array<[string | undefined, unknown, number, RegExp]> = [
    ['{not json', undefined, 400, /not valid JSON/],
    [
      undefined,
      { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} },
      400,
      /apiVersion must be "admission.k8s.io\/v1"/,
    ],
    [
      undefined,
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
      400,
      /request must be an object/,
    ],
    [
      undefined,
      {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { operation: 'UPDATE' },
      },
      400,
      /request.uid/,
    ],
    ['', undefined, 400, /body is empty/],
    ['42', undefined, 400, /got a number/],
  ];
  for (const [raw, body, status, message] of cases) {
    const res = await call('/validate/pvc-resize', body, 'POST', raw);
    assert.strictEqual(res.status, status, res.body);
    const json = res.json() as { kind: string; code: number; message: string };
    assert.strictEqual(json.kind, 'Status');
    assert.strictEqual(json.code, status);
    assert.match(json.message, message);
  }
  const huge = await call(
    '/validate/pvc-resize',
    undefined,
    'POST',
    JSON.stringify({ pad: 'x'.repeat(70 * 1024) }),
  );
  assert.strictEqual(huge.status, 413);
  assert.match((huge.json() as { message: string }).message, /larger than the 65536 byte limit/);
  const unknown = await call('/validate/nothing', pvcReview('u'));
  assert.strictEqual(unknown.status, 404);
  assert.match(
    (unknown.json() as { message: string }).message,
    /no webhook at \/validate\/nothing/,
  );
  const get = await call('/validate/pvc-resize', undefined, 'GET');
  assert.strictEqual(get.status, 405);
  assert.strictEqual(get.headers['allow'], 'POST');
  // Still healthy after all of that.
  assert.strictEqual((await call('/validate/pvc-resize', pvcReview('after'))).status, 200);
});

it('reviews that arrive together each get their own answer: allowed, refused, a throwing and an asynchronous validator, invalid JSON, not a review', async () => {
  const judged: string[] = [];
  const mixed: Validator = {
    name: 'mixed',
    path: '/validate/mixed',
    validate: (r) => {
      judged.push(r.uid);
      if (r.name === 'throw') throw new Error(`boom for ${r.uid}`);
      if (r.name === 'async')
        return new Promise((resolve) =>
          setTimeout(() => resolve({ allowed: true, decision: 'later' }), 5),
        );
      if (r.name === 'refuse')
        return {
          allowed: false,
          code: 422,
          reason: 'Invalid',
          message: `PVC_EXPAND: no for ${r.uid}`,
          decision: 'test-refusal',
        };
      return { allowed: true, decision: 'test-allowed' };
    },
  };
  const { address, files } = await start({ validators: [mixed] });
  const agent = new Agent({ keepAlive: true, maxSockets: 12 });
  onCleanup(() => agent.destroy());
  const send = (raw: string) =>
    httpsRequest(address.port, files.ca.certificatePem, {
      path: '/validate/mixed',
      body: raw,
      agent,
    });
  // Twelve connections open and idle first, so the second wave's requests are all written before the server reads any.
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => send(JSON.stringify(pvcReview(`warm-${i}`)))),
  );
  judged.length = 0;
  const names = [
    'data',
    'refuse',
    'throw',
    'async',
    'data',
    'refuse',
    'throw',
    'async',
    'data',
    'data',
  ];
  const answers = await Promise.all([
    ...names.map((name, i) => send(JSON.stringify(pvcReview(`uid-${i}`, '10Gi', '20Gi', name)))),
    send('{not json'),
    send(
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x' },
      }),
    ),
  ]);
  names.forEach((name, i) => {
    const answer = answers[i]!;
    assert.strictEqual(answer.status, 200, answer.body);
    const { response } = answer.json() as {
      response: { uid: string; allowed: boolean; status?: { code: number; message: string } };
    };
    assert.strictEqual(response.uid, `uid-${i}`);
    assert.strictEqual(response.allowed, name === 'data' || name === 'async', name);
    if (name === 'refuse')
      assert.deepStrictEqual(
        [response.status?.code, response.status?.message],
        [422, `PVC_EXPAND: no for uid-${i}`],
      );
    if (name === 'throw')
      assert.match(String(response.status?.message), new RegExp(`boom for uid-${i}`));
  });
  assert.strictEqual(answers[10]!.status, 400);
  assert.match((answers[10]!.json() as { message: string }).message, /not valid JSON/);
  assert.strictEqual(answers[11]!.status, 400);
  assert.match((answers[11]!.json() as { message: string }).message, /request.kind/);
  assert.strictEqual(judged.length, names.length);
});

it('validators get the review as sent, managedFields included; a malformed list is 400 at its place in the body as sent', async () => {
  const seenObjects: unknown[] = [];
  const seen: Validator = {
    name: 'seen',
    path: '/validate/seen',
    validate: (r) => {
      seenObjects.push(r.object);
      return { allowed: true, decision: 'seen' };
    },
  };
  const { call } = await start({ validators: [seen] });
  const managedFields = [
    {
      manager: 'csi-resizer',
      operation: 'Update',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:capacity': { '.': {} } } },
    },
  ];
  const review = pvcReview('uid-m') as {
    request: { object: { metadata: Record<string, unknown> } };
  };
  review.request.object.metadata['managedFields'] = managedFields;
  review.request.object.metadata['annotations'] = {
    'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io',
  };
  assert.strictEqual((await call('/validate/seen', review)).status, 200);
  assert.deepStrictEqual(seenObjects, [review.request.object]);

  const text = JSON.stringify(review);
  const broken = text.replace('"f:capacity":{', '"f:capacity":{,');
  const res = await call('/validate/seen', undefined, 'POST', broken);
  assert.strictEqual(res.status, 400);
  let position = -1;
  try {
    JSON.parse(broken);
  } catch (error) {
    position = Number(/at position (\d+)/.exec((error as Error).message)?.[1]);
  }
  assert.ok(position > broken.indexOf('"managedFields"'));
  assert.strictEqual(
    (res.json() as { message: string }).message,
    `the request body is not valid JSON (at character ${position})`,
  );
  assert.strictEqual(seenObjects.length, 1);
});

it('only the exact webhook path is a webhook: a trailing slash, other letter case or a doubled slash is 404 for POST and GET alike', async () => {
  const { call } = await start();
  for (const path of [
    '/validate/pvc-resize/',
    '/VALIDATE/PVC-RESIZE',
    '/Validate/pvc-resize',
    '/validate/pvc-resize//',
    '//validate/pvc-resize',
    '/validate/pvc-resize/?timeout=10s',
  ]) {
    for (const method of ['POST', 'GET']) {
      const res = await call(path, method === 'POST' ? pvcReview('near') : undefined, method);
      assert.strictEqual(res.status, 404, `${method} ${path}: ${res.body}`);
      const json = res.json() as { kind: string; code: number; message: string };
      assert.strictEqual(json.kind, 'Status');
      assert.match(
        json.message,
        /^no webhook at .*; webhooks: \/validate\/pvc-resize, \/validate\/vm$/,
      );
    }
  }
  assert.strictEqual(
    (await call('/validate/pvc-resize?timeout=10s', pvcReview('exact'))).status,
    200,
  );
  assert.strictEqual((await call('/validate/pvc-resize', undefined, 'GET')).status, 405);
  assert.strictEqual((await call('/livez/', undefined, 'GET')).status, 404);
  assert.strictEqual((await call('/livez', undefined, 'GET')).status, 200);
});

it("the default body limit is 7 MiB: an update whose object and old object each fill the API server's 3 MiB write limit is answered", async () => {
  const { call } = await start();
  const review = pvcReview('big');
  const request = review['request'] as {
    object: { metadata: Record<string, unknown> };
    oldObject: { metadata: Record<string, unknown> };
  };
  const pad = 'x'.repeat(3 * 1024 * 1024 - 1024);
  request.object.metadata['annotations'] = { pad };
  request.oldObject.metadata['annotations'] = { pad };
  const answered = await call('/validate/pvc-resize', review);
  assert.strictEqual(answered.status, 200, answered.body.slice(0, 300));
  assert.strictEqual(
    (JSON.parse(answered.body) as { response: { uid: string } }).response.uid,
    'big',
  );
  const tooBig = await call(
    '/validate/pvc-resize',
    undefined,
    'POST',
    JSON.stringify({ pad: 'x'.repeat(7 * 1024 * 1024 + 10) }),
  );
  assert.strictEqual(tooBig.status, 413);
  assert.match(tooBig.body, /larger than the 7340032 byte limit/);
});

it('/livez, /readyz follow the readiness function, /metrics exposes the webhook metrics', async () => {
  let synced = false;
  const { call } = await start({ ready: () => synced });
  assert.strictEqual((await call('/livez', undefined, 'GET')).body, 'ok');
  const notReady = await call('/readyz', undefined, 'GET');
  assert.strictEqual(notReady.status, 503);
  assert.match(notReady.body, /caches not synced/);
  synced = true;
  assert.strictEqual((await call('/readyz', undefined, 'GET')).status, 200);
  await call('/validate/pvc-resize', pvcReview('m1'));
  await call('/validate/pvc-resize', pvcReview('m2', '1Gi', '2Gi', 'refuse-me'));
  await call('/validate/pvc-resize', pvcReview('m3'));
  await call('/validate/pvc-resize', { nope: true });
  const metrics = (await call('/metrics', undefined, 'GET')).body;
  assert.match(
    metrics,
    /voe_webhook_requests_total\{webhook="pvc-resize",decision="allowed",reason="not-resize"\} 2\n/,
  );
  assert.match(
    metrics,
    /voe_webhook_requests_total\{webhook="pvc-resize",decision="refused",reason="test-refusal"\} 1\n/,
  );
  assert.match(
    metrics,
    /voe_webhook_request_duration_seconds_bucket\{le="\+Inf",webhook="pvc-resize",decision="allowed",reason="not-resize"\} 2\n/,
  );
  assert.match(
    metrics,
    /voe_webhook_request_duration_seconds_count\{webhook="pvc-resize",decision="refused",reason="test-refusal"\} 1\n/,
  );
  assert.match(metrics, /voe_webhook_bad_requests_total\{webhook="pvc-resize"\} 1/);
  assert.match(metrics, /voe_webhook_certificate_expiry_timestamp_seconds \d+/);
  assert.match(metrics, /process_cpu_seconds_total/);
});

it('/metrics: when the registry cannot be read, 500 text saying why, logged, and the server keeps serving', async () => {
  let fail = false;
  const registry = new Registry();
  new Gauge({
    name: 'test_gauge',
    help: 'a metric whose collection fails on demand',
    registers: [registry],
    collect() {
      if (fail) throw new Error('the test gauge cannot be read');
      this.set(1);
    },
  });
  const { call, logs } = await start({ registry });
  const ok = await call('/metrics', undefined, 'GET');
  assert.strictEqual(ok.status, 200);
  assert.match(ok.body, /^test_gauge 1$/m);
  assert.match(String(ok.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  fail = true;
  const failed = await call('/metrics', undefined, 'GET');
  assert.strictEqual(failed.status, 500);
  assert.match(String(failed.headers['content-type']), /^text\/plain; charset=utf-8/);
  assert.strictEqual(failed.body, 'metrics unavailable: the test gauge cannot be read');
  assert.ok(
    logs
      .lines()
      .some(
        (l) =>
          l['msg'] === 'metrics unavailable' &&
          String(l['error']).includes('the test gauge cannot be read'),
      ),
  );
  assert.deepStrictEqual((await call('/validate/pvc-resize', pvcReview('after'))).json(), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'after', allowed: true },
  });
});

it('/readyz names the caches not synced yet, and once ready the resources the cluster does not serve', async () => {
  let synced = false;
  let notServed = ['virtualmachines.kubevirt.io', 'settings.harvesterhci.io'];
  const { call } = await start({
    ready: () => synced,
    cacheStatus: () => ({ unsynced: synced ? [] : ['persistentvolumeclaims'], notServed }),
  });
  const notReady = await call('/readyz', undefined, 'GET');
  assert.strictEqual(notReady.status, 503);
  assert.strictEqual(notReady.body, 'not ready: caches not synced (persistentvolumeclaims)');
  synced = true;
  const ready = await call('/readyz', undefined, 'GET');
  assert.strictEqual(ready.status, 200);
  assert.strictEqual(
    ready.body,
    'ok; not served by the cluster, watched as empty: virtualmachines.kubevirt.io, settings.harvesterhci.io',
  );
  notServed = [];
  assert.strictEqual((await call('/readyz', undefined, 'GET')).body, 'ok');
});

it('caches watched but not read yet (Longhorn found after start, its Role not applied) keep /readyz 200, are named there and counted by voe_webhook_caches_not_read, not by voe_webhook_caches_not_synced', async () => {
  let notRead = [
    'volumes.longhorn.io in longhorn-system',
    'engines.longhorn.io in longhorn-system',
  ];
  const { call } = await start({
    ready: () => true,
    cacheStatus: () => ({ unsynced: [], notServed: ['kubevirts.kubevirt.io'], notRead }),
  });
  const gauge = async (name: string): Promise<number> =>
    Number(
      new RegExp(`^${name} (\\d+)$`, 'm').exec(
        (await call('/metrics', undefined, 'GET')).body,
      )?.[1],
    );
  const ready = await call('/readyz', undefined, 'GET');
  assert.strictEqual(ready.status, 200);
  assert.strictEqual(
    ready.body,
    'ok; not served by the cluster, watched as empty: kubevirts.kubevirt.io; ' +
      'served but not read yet (not listed, see the log): volumes.longhorn.io in longhorn-system, engines.longhorn.io in longhorn-system',
  );
  assert.strictEqual(await gauge('voe_webhook_caches_not_read'), 2);
  assert.strictEqual(await gauge('voe_webhook_caches_not_synced'), 0);
  notRead = [];
  assert.strictEqual(
    (await call('/readyz', undefined, 'GET')).body,
    'ok; not served by the cluster, watched as empty: kubevirts.kubevirt.io',
  );
  assert.strictEqual(await gauge('voe_webhook_caches_not_read'), 0);
});

it('a readiness function that throws means not ready', async () => {
  const { call } = await start({
    ready: () => {
      throw new Error('no');
    },
  });
  assert.strictEqual((await call('/readyz', undefined, 'GET')).status, 503);
});

it('logs never contain the private key or request objects', async () => {
  const { call, logs, files } = await start();
  await call('/validate/pvc-resize', pvcReview('l1', '1Gi', '2Gi', 'refuse-me'));
  await call('/validate/vm', pvcReview('l2'));
  const key = await readFile(files.keyFile, 'utf8');
  const text = logs.text();
  assert.ok(text.includes('request refused'));
  assert.ok(!text.includes(key.split('\n')[1] ?? 'unreachable'));
  assert.ok(!text.includes('storageClassName'));
});

it('configuration errors are typed', async () => {
  const files = await writeServingFiles();
  try {
    const { logger } = captureLogger();
    expectThrow(
      () =>
        createWebhookServer({
          validators: [validators[0]!, { ...validators[0]!, name: 'dup' }],
          tls: files,
          ready: () => true,
          logger,
        }),
      (e: unknown) => e instanceof WebhookError && e.code === 'WEBHOOK_DUPLICATE_PATH',
    );
    const missing = createWebhookServer({
      validators,
      tls: { certFile: `${files.dir}/nope.crt`, keyFile: files.keyFile },
      ready: () => true,
      logger,
    });
    await expectRejection(
      missing.listen(0, '127.0.0.1'),
      (e: unknown) => e instanceof WebhookError && e.code === 'WEBHOOK_TLS_LOAD_FAILED',
    );
    const first = createWebhookServer({
      validators,
      tls: files,
      ready: () => true,
      logger,
      registry: new Registry(),
    });
    const address = await first.listen(0, '127.0.0.1');
    try {
      const second = createWebhookServer({
        validators,
        tls: files,
        ready: () => true,
        logger,
        registry: new Registry(),
      });
      await expectRejection(
        second.listen(address.port, '127.0.0.1'),
        (e: unknown) => e instanceof WebhookError && e.code === 'WEBHOOK_LISTEN_FAILED',
      );
    } finally {
      await first.close();
    }
  } finally {
    await files.cleanup();
  }
});

it("idle connections are kept 95 s, longer than the API server's own 90 s, so it closes them first", async () => {
  const { call } = await start();
  const res = await call('/validate/pvc-resize', pvcReview('keep'));
  assert.strictEqual(res.headers['keep-alive'], 'timeout=95');
});

it('the query string the API server adds (?timeout=10s) is ignored', async () => {
  const { call } = await start();
  const withTimeout = await call('/validate/pvc-resize?timeout=10s', pvcReview('q1'));
  assert.strictEqual(withTimeout.status, 200);
  assert.strictEqual((withTimeout.json() as { response: { uid: string } }).response.uid, 'q1');
});

it('gzip bodies and non-utf-8 charsets are refused with 415', async () => {
  const files = await writeServingFiles();
  const { logger } = captureLogger();
  const server = createWebhookServer({ validators, tls: files, ready: () => true, logger });
  const { port } = await server.listen(0, '127.0.0.1');
  onCleanup(async () => {
    await server.close();
    await files.cleanup();
  });
  const gzip = await httpsRequest(port, files.ca.certificatePem, {
    path: '/validate/pvc-resize',
    body: JSON.stringify(pvcReview('g')),
    headers: { 'content-encoding': 'gzip' },
  });
  assert.strictEqual(gzip.status, 415);
  assert.match(
    (gzip.json() as { message: string }).message,
    /content-encoding gzip is not supported/,
  );
  const latin1 = await httpsRequest(port, files.ca.certificatePem, {
    path: '/validate/pvc-resize',
    body: JSON.stringify(pvcReview('l')),
    headers: { 'content-type': 'application/json; charset=latin1' },
  });
  assert.strictEqual(latin1.status, 415);
  const utf8 = await httpsRequest(port, files.ca.certificatePem, {
    path: '/validate/pvc-resize',
    body: JSON.stringify(pvcReview('u')),
    headers: { 'content-type': 'application/json; charset=UTF-8' },
  });
  assert.strictEqual(utf8.status, 200);
});

it('what the client sent is never echoed in a 400: not from invalid JSON, not from a wrong apiVersion or kind; a deeply nested one is 400 too', async () => {
  const { call, logs } = await start();
  const secret = 'sekrit-token-value';
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const cases: Array<[string, RegExp]> = [
    [
      `{"apiVersion": "admission.k8s.io/v1", "token": ${secret}}`,
      /^the request body is not valid JSON( \(at character \d+\))?$/,
    ],
    [
      JSON.stringify({ apiVersion: { token: secret }, kind: 'AdmissionReview', request: {} }),
      /apiVersion must be "admission\.k8s\.io\/v1" .*got an object$/,
    ],
    [
      JSON.stringify({
        apiVersion: `v1 ${secret} with spaces`,
        kind: 'AdmissionReview',
        request: {},
      }),
      /got a string$/,
    ],
    [
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: { token: secret }, request: {} }),
      /kind must be "AdmissionReview", got an object$/,
    ],
    [`{"apiVersion": ${deep}, "kind": "AdmissionReview"}`, /apiVersion must be .*got an array$/],
    [
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        request: {},
      }),
      /got "admission\.k8s\.io\/v1beta1"$/,
    ],
  ];
  for (const [raw, message] of cases) {
    const res = await call('/validate/pvc-resize', undefined, 'POST', raw);
    assert.strictEqual(res.status, 400, res.body.slice(0, 300));
    const text = (res.json() as { message: string }).message;
    assert.match(text, message);
    assert.ok(!text.includes(secret), text);
  }
  assert.ok(!logs.text().includes(secret), 'nor in the logs');
});

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('a body sent a byte at a time (chunked, one byte per chunk) is kept in one buffer, not a Buffer object per byte (which cost ~190 bytes of heap each)', async () => {
  let heapAtValidate = 0;
  const files = await writeServingFiles();
  const logs = captureLogger();
  const server = createWebhookServer({
    // What is still held when the validator runs: garbage collected first (each piece the HTTP parser
    // hands over is garbage once copied; only what is kept counts).
    validators: [
      {
        name: 'pvc-resize',
        path: '/validate/pvc-resize',
        validate: () => {
          gc();
          heapAtValidate = process.memoryUsage().heapUsed;
          return { allowed: true, decision: 'not-resize' };
        },
      },
    ],
    tls: { certFile: files.certFile, keyFile: files.keyFile },
    ready: () => true,
    logger: logs.logger,
  });
  const { port } = await server.listen(0, '127.0.0.1');
  onCleanup(async () => {
    await server.close();
    await files.cleanup();
  });
  const review = pvcReview('bytewise') as { request: Record<string, unknown> };
  const body = Buffer.from(
    JSON.stringify({ ...review, request: { ...review.request, pad: 'x'.repeat(200_000) } }),
  );
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  // The client in a process of its own: its 200,000 writes must not count in this heap.
  const client = `
    const { connect } = require('node:tls');
    const review = JSON.parse(process.env.REVIEW);
    const body = Buffer.from(JSON.stringify({ ...review, request: { ...review.request, pad: 'x'.repeat(Number(process.env.PAD)) } }));
    const socket = connect({ host: '127.0.0.1', port: Number(process.env.PORT), ca: process.env.CA }, () => {
      socket.write('POST /validate/pvc-resize HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nTransfer-Encoding: chunked\\r\\nConnection: close\\r\\n\\r\\n');
      // Chunked transfer encoding, one byte per chunk: the server's HTTP parser hands each over as its own piece.
      const parts = [];
      for (let i = 0; i < body.length; i++) parts.push('1\\r\\n' + String.fromCharCode(body[i]) + '\\r\\n');
      socket.write(parts.join('') + '0\\r\\n\\r\\n');
    });
    let text = '';
    socket.on('data', (c) => { text += c; });
    socket.on('end', () => process.stdout.write(text));
  `;
  const answer = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', client],
      {
        env: {
          ...process.env,
          REVIEW: JSON.stringify(review),
          PAD: '200000',
          PORT: String(port),
          CA: files.ca.certificatePem,
        },
        maxBuffer: 1 << 20,
      },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
  assert.match(answer, /^HTTP\/1\.1 200/);
  assert.match(answer, /"uid":"bytewise","allowed":true/);
  // Kept as 200,000 Buffers the body held ~38 MB of heap when the validator ran; in one buffer, about its size.
  assert.ok(
    heapAtValidate - heapBefore < 20 * 1024 * 1024,
    `heap grew by ${Math.round((heapAtValidate - heapBefore) / 1024 / 1024)} MB for a ${Math.round(body.length / 1024)} KB body`,
  );
});

/** A TCP connection that never starts TLS (a port scan, a stalled client); resolves once connected. */
async function silentConnection(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  onCleanup(() => {
    socket.destroy();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, closed };
}

it('close() ends connections that never finished their TLS handshake (closeAllConnections does not reach them), instead of waiting for the client for ever', async () => {
  const { server, address } = await start();
  const silent = await silentConnection(address.port);
  const outcome = await Promise.race([
    server.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(resolve, 30_000, 'still waiting')),
  ]);
  assert.strictEqual(outcome, 'closed');
  await silent.closed;
});

it('a connection whose TLS handshake times out is dropped, not half-closed and kept (one file descriptor per stalled client)', async () => {
  const { address, call, logs } = await start({ handshakeTimeoutMs: 300 });
  const silent = await silentConnection(address.port);
  await silent.closed;
  assert.ok(logs.lines().some((l) => l['msg'] === 'TLS handshake timed out'));
  assert.strictEqual(
    (await call('/livez', undefined, 'GET')).status,
    200,
    'the server keeps serving',
  );
}).timeout(60_000);

it('a failed listen says what to do for its cause: a port in use, an address not of this machine, a name that does not resolve', async () => {
  const { address } = await start();
  const files = await writeServingFiles();
  onCleanup(() => files.cleanup());
  const cases: Array<[string, number, RegExp]> = [
    ['127.0.0.1', address.port, /EADDRINUSE.*\. Pick another --port or stop what uses it\.$/],
    [
      '10.255.255.1',
      0,
      /EADDRNOTAVAIL.*\. The address is not one of this machine's: pick another --bind-address\.$/,
    ],
    [
      'no-such-host.invalid',
      0,
      /\. The --bind-address is neither an IP address nor a name this machine resolves: give an address of this machine\.$/,
    ],
  ];
  for (const [host, port, message] of cases) {
    const server = createWebhookServer({
      validators,
      tls: { certFile: files.certFile, keyFile: files.keyFile },
      ready: () => true,
      logger: captureLogger().logger,
    });
    await expectRejection(
      server.listen(port, host),
      (error: unknown) => {
        const e = error as Error & { code?: string };
        assert.strictEqual(e.code, 'WEBHOOK_LISTEN_FAILED');
        assert.match(e.message, message);
        return true;
      },
      host,
    );
    await server.close();
  }
});

it("/metrics starts every known label series at 0 (certificate reload results, each webhook's bad requests): an increase() alert sees the first event", async () => {
  const { call } = await start();
  const metrics = (await call('/metrics', undefined, 'GET')).body;
  assert.match(metrics, /^voe_webhook_certificate_reloads_total\{result="failure"\} 0$/m);
  assert.match(
    metrics,
    /^voe_webhook_certificate_reloads_total\{result="success"\} 1$/m,
    'the first load',
  );
  for (const { name } of validators)
    assert.match(
      metrics,
      new RegExp(`^voe_webhook_bad_requests_total\\{webhook="${name}"\\} 0$`, 'm'),
    );
});

it('drain(): every answer (reviews, probes, metrics, 404) carries Connection: close', async () => {
  const { server, call } = await start();
  assert.strictEqual((await call('/livez', undefined, 'GET')).headers.connection, 'keep-alive');
  server.drain();
  for (const [path, method] of [
    ['/validate/pvc-resize', 'POST'],
    ['/livez', 'GET'],
    ['/readyz', 'GET'],
    ['/metrics', 'GET'],
    ['/nowhere', 'GET'],
  ] as const) {
    const answer = await call(path, method === 'POST' ? pvcReview('drained') : undefined, method);
    assert.strictEqual(answer.headers.connection, 'close', `${method} ${path}`);
  }
});
