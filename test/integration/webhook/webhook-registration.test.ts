import { test } from 'node:test';
import assert from 'node:assert/strict';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import {
  buildValidatingWebhookConfiguration,
  deleteValidatingWebhookConfiguration,
  devOwnerAnnotations,
  readDevOwner,
  registerDevConfiguration,
} from '../../../src/webhook/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import { eventually } from '../../support/held-clock.js';
import {
  servingUrl,
  spawnServeDev,
  type ServeDevProcess,
} from '../../support/serve-dev-process.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Starts `voe serve --dev` (killed after the test if still running); resolves once it serves. */
async function start(
  t: { after: (fn: () => void) => void },
  args: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<ServeDevProcess & { url: string; certDir: string }> {
  const serve = spawnServeDev(cp.kubeconfigPath, args, env);
  t.after(() => {
    serve.child.kill('SIGKILL');
  });
  const { url } = await servingUrl(serve);
  const certDir = String(
    (await serve.waitForLog('dev certificates written (ca.crt, tls.crt, tls.key)'))['certDir'],
  );
  return Object.assign(serve, { url, certDir });
}

/** The certificate dir `serve` logged (before it exits, or after). */
async function certDirOf(serve: ServeDevProcess): Promise<string> {
  return String(
    (await serve.waitForLog('dev certificates written (ca.crt, tls.crt, tls.key)'))['certDir'],
  );
}

/** What the API server answers a dry-run create of the Setting disabling Longhorn (the real setting webhook refuses it). */
async function disableLonghornDryRun(): Promise<{ code?: number; message: string }> {
  try {
    await custom.createClusterCustomObject({
      group: 'harvesterhci.io',
      version: 'v1beta1',
      plural: 'settings',
      dryRun: 'All',
      body: {
        apiVersion: 'harvesterhci.io/v1beta1',
        kind: 'Setting',
        metadata: { name: 'csi-online-expand-validation' },
        value: '{"driver.longhorn.io":false}',
      },
    });
    return { message: 'admitted' };
  } catch (error) {
    const e = error as { code?: number; body?: unknown };
    return { code: e.code, message: (JSON.parse(String(e.body)) as { message: string }).message };
  }
}

const urls = (c: V1ValidatingWebhookConfiguration): string[] =>
  (c.webhooks ?? []).map((w) => w.clientConfig.url ?? '');

test('a second voe serve --dev on the same name is refused while the first answers; the first stays registered and working', async (t) => {
  const first = await start(t);
  const registered = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
  const owner = readDevOwner(registered);
  assert.ok(typeof owner === 'object');
  assert.equal(owner.pid, first.pid);
  assert.equal(owner.url, first.url);

  const second = spawnServeDev(cp.kubeconfigPath);
  t.after(() => {
    second.child.kill('SIGKILL');
  });
  assert.deepEqual(await second.exited, { code: 2, signal: null });
  assert.match(
    second.stderr(),
    new RegExp(
      `^voe: WEBHOOK_CONFIGURATION_IN_USE: ValidatingWebhookConfiguration voe-dev is registered by another voe serve --dev \\(pid ${first.pid} on host [^,]+, ${first.url.replace(/\./g, '\\.')}, id [0-9a-f]+\\), which still answers\\. Nothing was changed\\. Stop that one first, or pass --webhook-configuration-name`,
      'm',
    ),
  );
  assert.equal(
    await exists(await certDirOf(second)),
    false,
    'the refused instance removed its certificate dir',
  );

  const after = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
  assert.equal(after.metadata?.uid, registered.metadata?.uid);
  assert.equal(
    after.metadata?.resourceVersion,
    registered.metadata?.resourceVersion,
    'not touched',
  );
  assert.deepEqual(urls(after), urls(registered));
  // The API server still calls the first instance: its setting webhook refuses disabling Longhorn.
  const refusal = await disableLonghornDryRun();
  assert.equal(refusal.code, 422);
  assert.match(
    refusal.message,
    /admission webhook "setting\.voe\.harvesterhci\.io" denied the request/,
  );

  assert.deepEqual(await first.stop('SIGTERM'), { code: 0, signal: null }, first.stderr());
  await assert.rejects(
    admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }),
    (e: { code?: number }) => e.code === 404,
  );
  assert.equal(await exists(first.certDir), false);
  assert.ok(
    !first.logs().some((l) => /by someone else/.test(String(l['msg']))),
    "its own removal is not reported as someone else's",
  );
});

test('a registration left by a killed voe serve --dev (SIGKILL) is replaced with a warning, as a new object; its temporary certificate dir is removed', async (t) => {
  // A TMPDIR of this test's own: what the next start sweeps is only what this test left.
  const tmp = await mkdtemp(join(tmpdir(), 'voe-registration-test-'));
  t.after(() => rm(tmp, { recursive: true, force: true }));
  const env = { ...process.env, TMPDIR: tmp };
  // Another instance (of another name) that keeps running throughout.
  const running = await start(t, ['--webhook-configuration-name', 'voe-dev-other'], env);
  const killed = await start(t, [], env);
  t.after(() => rm(killed.certDir, { recursive: true, force: true }));
  const left = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
  assert.deepEqual(await killed.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
  assert.equal(
    (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' })).metadata?.uid,
    left.metadata?.uid,
    'left behind',
  );

  assert.ok(
    await exists(join(killed.certDir, 'tls.key')),
    'SIGKILL runs no clean-up: the dev serving key is left',
  );
  const next = await start(t, [], env);
  const swept = await next.waitForLog(
    'removed the temporary certificate dir of a voe serve --dev that was killed (it held its dev serving key)',
  );
  assert.equal(swept['certDir'], killed.certDir);
  assert.equal(await exists(killed.certDir), false);
  assert.ok(
    await exists(join(running.certDir, 'tls.key')),
    'the dir of an instance that runs is left alone',
  );
  assert.deepEqual(await running.stop('SIGTERM'), { code: 0, signal: null });
  const warning = next
    .logs()
    .find(
      (l) =>
        l['level'] === 40 &&
        /^replacing ValidatingWebhookConfiguration voe-dev left by/.test(String(l['msg'])),
    );
  assert.ok(warning, next.stdout());
  assert.match(
    String(warning['msg']),
    new RegExp(`left by voe serve --dev \\(pid ${killed.pid} on host .*, which no longer answers$`),
  );
  const replaced = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
  assert.notEqual(
    replaced.metadata?.uid,
    left.metadata?.uid,
    'a new object, so the old instance could never delete it',
  );
  assert.ok(urls(replaced).every((u) => u.startsWith(`${next.url}/`)));
  assert.equal((readDevOwner(replaced) as { pid: number }).pid, next.pid);
  assert.deepEqual(await next.stop('SIGTERM'), { code: 0, signal: null }, next.stderr());
  await assert.rejects(
    admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }),
    (e: { code?: number }) => e.code === 404,
  );
});

test('a registration edited, then deleted, by someone else while voe serve --dev runs is reported at once, left as it is, and not deleted twice', async (t) => {
  const serve = await start(t);
  await serve.waitForLog('the API server calls the webhook');
  const registered = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
  const edited = structuredClone(registered);
  edited.webhooks![0]!.failurePolicy = 'Ignore';
  edited.webhooks![0]!.timeoutSeconds = 5;
  await admission.replaceValidatingWebhookConfiguration({ name: 'voe-dev', body: edited });
  const change = await serve.waitForLog(
    /^ValidatingWebhookConfiguration voe-dev was changed by someone else while voe serve --dev runs/,
    20_000,
  );
  assert.equal(change['level'], 40);
  assert.deepEqual(change['changes'], [
    'pvc-resize.voe.harvesterhci.io: failurePolicy Fail -> Ignore',
    'pvc-resize.voe.harvesterhci.io: timeoutSeconds 10 -> 5',
  ]);
  assert.equal(
    (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' })).webhooks![0]!
      .failurePolicy,
    'Ignore',
    'left as it is',
  );

  await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev' });
  const deleted = await serve.waitForLog(
    /^ValidatingWebhookConfiguration voe-dev was deleted by someone else while voe serve --dev runs: the API server no longer calls this webhook/,
    20_000,
  );
  assert.equal(deleted['uid'], registered.metadata?.uid);
  await new Promise((r) => setTimeout(r, 1_000));
  await assert.rejects(
    admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }),
    (e: { code?: number }) => e.code === 404,
    'not put back',
  );

  assert.deepEqual(await serve.stop('SIGTERM'), { code: 0, signal: null }, serve.stderr());
  assert.ok(
    serve
      .logs()
      .some(
        (l) => l['msg'] === 'ValidatingWebhookConfiguration was already deleted by someone else',
      ),
  );
  assert.equal(
    serve.logs().filter((l) => /was deleted by someone else while/.test(String(l['msg']))).length,
    1,
    "its own removal at exit is not reported as someone else's",
  );
});

test('deleting with the uid of what we registered leaves another object of the same name alone', async () => {
  const body = { metadata: { name: 'voe-dev-uid' }, webhooks: [] };
  const mine = await admission.createValidatingWebhookConfiguration({ body });
  await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev-uid' });
  const theirs = await admission.createValidatingWebhookConfiguration({ body });
  assert.equal(
    await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
      uid: mine.metadata!.uid!,
    }),
    'not-ours',
  );
  assert.equal(
    (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev-uid' })).metadata?.uid,
    theirs.metadata?.uid,
  );
  assert.equal(
    await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
      uid: theirs.metadata!.uid!,
    }),
    'deleted',
  );
  assert.equal(
    await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
      uid: theirs.metadata!.uid!,
    }),
    'gone',
  );
});

test('deleting our configuration retries a transient failure (503, 429, no answer) and gives up on others at once', async (t) => {
  const proxy = await startFaultProxy(cp.kubeConfig);
  t.after(() => proxy.close());
  const name = 'voe-dev-retry';
  const path = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;
  const deletes = () => proxy.requests.filter((r) => r.method === 'DELETE' && r.path === path);
  const mine = await admission.createValidatingWebhookConfiguration({
    body: { metadata: { name }, webhooks: [] },
  });
  t.after(() =>
    admission.deleteValidatingWebhookConfiguration({ name }).then(
      () => undefined,
      () => undefined,
    ),
  );
  // One 503 (an API server shutting down, a load balancer between it and us): retried, deleted.
  proxy.inject({ path }, { answer: 503, message: 'injected: the API server is shutting down' });
  const deleting = deleteValidatingWebhookConfiguration(proxy.kubeConfig, name, {
    uid: mine.metadata!.uid!,
    minRetryMs: 1_000,
  });
  await eventually(
    () => deletes().some((r) => r.injected && r.status === 503),
    10_000,
    'the injected 503',
  );
  proxy.heal();
  assert.equal(await deleting, 'deleted');
  assert.equal(deletes().length, 2);
  // Failing every time: given up after the retries, with the error naming the object.
  const again = await admission.createValidatingWebhookConfiguration({
    body: { metadata: { name }, webhooks: [] },
  });
  proxy.inject({ path }, { answer: 429, message: 'injected: too many requests' });
  await assert.rejects(
    deleteValidatingWebhookConfiguration(proxy.kubeConfig, name, {
      uid: again.metadata!.uid!,
      retries: 2,
      minRetryMs: 10,
    }),
    (error: Error & { code?: string }) =>
      error.code === 'WEBHOOK_REGISTRATION_FAILED' &&
      /^Cannot delete ValidatingWebhookConfiguration voe-dev-retry: /.test(error.message),
  );
  assert.equal(deletes().length, 2 + 3, 'the first try and two retries');
  // Forbidden is no transient failure: one try.
  proxy.inject({ path }, { answer: 403, message: 'injected: forbidden' });
  await assert.rejects(
    deleteValidatingWebhookConfiguration(proxy.kubeConfig, name, {
      uid: again.metadata!.uid!,
      minRetryMs: 10,
    }),
    /forbidden/,
  );
  assert.equal(deletes().length, 2 + 3 + 1);
  proxy.heal();
  assert.equal(
    (await admission.readValidatingWebhookConfiguration({ name })).metadata?.uid,
    again.metadata?.uid,
    'still there: nothing deleted it',
  );
});

test('registering retries a transient failure, and a create the API server stored but whose answer was lost (504) is taken as ours, not left behind', async (t) => {
  const proxy = await startFaultProxy(cp.kubeConfig);
  t.after(() => proxy.close());
  const collection = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const creates = () => proxy.requests.filter((r) => r.method === 'POST' && r.path === collection);
  // No webhooks: nothing the file's other tests write is sent anywhere while it exists.
  const body = (name: string, id: string) =>
    buildValidatingWebhookConfiguration({
      name,
      urlBase: 'https://127.0.0.1:1',
      webhooks: [],
      annotations: devOwnerAnnotations({
        host: 'here',
        pid: process.pid,
        id,
        url: 'https://127.0.0.1:1',
      }),
    });
  const remove = (name: string) => () =>
    admission.deleteValidatingWebhookConfiguration({ name }).then(
      () => undefined,
      () => undefined,
    );
  t.after(remove('voe-dev-lost'));
  t.after(remove('voe-dev-busy'));

  // The API server stores the object, then its answer is a 504 (as it answers a write that outlived
  // its request timeout): the retry finds the object, marked with this instance's id, and takes its uid.
  proxy.inject(
    { path: collection, method: 'POST', times: 1 },
    {
      answerAfterForwarding: 504,
      message:
        'Timeout: request did not complete within requested timeout - context deadline exceeded',
    },
  );
  const logs = captureLogger();
  const { uid } = await registerDevConfiguration(
    proxy.kubeConfig,
    body('voe-dev-lost', 'lost0001'),
    { logger: logs.logger },
  );
  const stored = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev-lost' });
  assert.equal(uid, stored.metadata?.uid);
  assert.deepEqual(
    creates().map((r) => r.status),
    [504, 409],
    'the lost create, then the retry that found it',
  );
  assert.match(
    logs.text(),
    /"msg":"ValidatingWebhookConfiguration voe-dev-lost was created by this instance although the API server's answer was lost; using it"/,
  );

  // A 503 and a 429 before anything is stored (an API server restarting, overloaded): retried.
  const before = creates().length;
  proxy.inject(
    { path: collection, method: 'POST', times: 2 },
    { answer: 503, message: 'injected: the API server is shutting down' },
  );
  const busy = await registerDevConfiguration(proxy.kubeConfig, body('voe-dev-busy', 'busy0001'));
  assert.equal(
    busy.uid,
    (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev-busy' })).metadata?.uid,
  );
  assert.deepEqual(
    creates()
      .slice(before)
      .map((r) => r.status),
    [503, 503, 201],
  );

  // Another instance's registration (another id) is still judged as before: it answers nowhere, so it is replaced.
  const replaced = await registerDevConfiguration(cp.kubeConfig, body('voe-dev-busy', 'busy0002'), {
    logger: logs.logger,
  });
  assert.notEqual(replaced.uid, busy.uid);
});

test('a configuration of that name that voe serve --dev did not register (the in-cluster manifest) is refused and left untouched', async (t) => {
  const manifest = parse(
    await readFile(new URL('../../../../manifests/webhook.yaml', import.meta.url), 'utf8'),
  ) as V1ValidatingWebhookConfiguration;
  const inCluster = await admission.createValidatingWebhookConfiguration({ body: manifest });
  // Its Service does not exist here and its failurePolicy is Fail: remove it before the file's other users of the cluster.
  t.after(() =>
    admission.deleteValidatingWebhookConfiguration({ name: 'voe' }).then(() => undefined),
  );
  const serve = spawnServeDev(cp.kubeconfigPath, ['--webhook-configuration-name', 'voe']);
  t.after(() => {
    serve.child.kill('SIGKILL');
  });
  assert.deepEqual(await serve.exited, { code: 2, signal: null });
  assert.match(
    serve.stderr(),
    /^voe: WEBHOOK_CONFIGURATION_NOT_OURS: ValidatingWebhookConfiguration voe exists and was not registered by voe serve --dev \(no voe\.harvesterhci\.io\/serve-dev annotation\): it may be the in-cluster webhook \(manifests\/webhook\.yaml\) or someone else's\. Nothing was changed\./m,
  );
  const after = await admission.readValidatingWebhookConfiguration({ name: 'voe' });
  assert.equal(after.metadata?.uid, inCluster.metadata?.uid);
  assert.equal(after.metadata?.resourceVersion, inCluster.metadata?.resourceVersion);
  assert.equal(await exists(await certDirOf(serve)), false);
});
