import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../../support/expect-error.js';
import { onCleanup } from '../../../support/cleanup.js';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CustomObjectsApi,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { buildValidatingWebhookConfiguration } from '../../../../src/webhook/registration/build-validating-webhook-configuration.js';
import {
  devOwnerAnnotations,
  readDevOwner,
} from '../../../../src/webhook/registration/dev-registration-owner.js';
import {
  deleteValidatingWebhookConfiguration,
  registerDevConfiguration,
} from '../../../../src/webhook/registration/webhook-registration.js';
import { captureLogger } from '../../../support/capture-logger.js';
import { startFaultProxy } from '../../../support/fault-proxy.js';
import { eventually } from '../../../support/eventually.js';
import {
  servingUrl,
  spawnServeDev,
  type ServeDevProcess,
} from '../../../support/webhook/serve-dev-process.js';
import { useControlPlane } from '../../../support/use-control-plane.js';

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
  args: string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<ServeDevProcess & { url: string; certDir: string }> {
  const serve = spawnServeDev(cp.kubeconfigPath, args, env);
  onCleanup(() => {
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

describe('the ValidatingWebhookConfiguration voe serve --dev registers', () => {
  it('a second voe serve --dev on the same name is refused while the first answers; the first stays registered and working', async () => {
    const first = await start();
    const registered = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
    const owner = readDevOwner(registered);
    assert.ok(typeof owner === 'object');
    assert.strictEqual(owner.pid, first.pid);
    assert.strictEqual(owner.url, first.url);

    const second = spawnServeDev(cp.kubeconfigPath);
    onCleanup(() => {
      second.child.kill('SIGKILL');
    });
    assert.deepStrictEqual(await second.exited, { code: 2, signal: null });
    assert.match(
      second.stderr(),
      new RegExp(
        `^voe: WEBHOOK_CONFIGURATION_IN_USE: ValidatingWebhookConfiguration voe-dev is registered by another voe serve --dev \\(pid ${first.pid} on host [^,]+, ${first.url.replace(/\./g, '\\.')}, id [0-9a-f]+\\), which still answers\\. Nothing was changed\\. Stop that one first, or pass --webhook-configuration-name`,
        'm',
      ),
    );
    assert.isFalse(
      await exists(await certDirOf(second)),
      'the refused instance removed its certificate dir',
    );

    const after = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
    assert.strictEqual(after.metadata?.uid, registered.metadata?.uid);
    assert.strictEqual(
      after.metadata?.resourceVersion,
      registered.metadata?.resourceVersion,
      'not touched',
    );
    assert.deepStrictEqual(urls(after), urls(registered));
    // The API server still calls the first instance: its setting webhook refuses disabling Longhorn.
    const refusal = await disableLonghornDryRun();
    assert.strictEqual(refusal.code, 422);
    assert.match(
      refusal.message,
      /admission webhook "setting\.voe\.harvesterhci\.io" denied the request/,
    );

    assert.deepStrictEqual(await first.stop('SIGTERM'), { code: 0, signal: null }, first.stderr());
    await expectRejection(admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }), {
      code: 404,
    });
    assert.isFalse(await exists(first.certDir));
    assert.ok(
      !first.logs().some((l) => /by someone else/.test(String(l['msg']))),
      "its own removal is not reported as someone else's",
    );
  });

  it('a registration left by a killed voe serve --dev (SIGKILL) is replaced with a warning, as a new object; its temporary certificate dir is removed', async () => {
    // A TMPDIR of this test's own: what the next start sweeps is only what this test left.
    const tmp = await mkdtemp(join(tmpdir(), 'voe-registration-test-'));
    onCleanup(() => rm(tmp, { recursive: true, force: true }));
    const env = { ...process.env, TMPDIR: tmp };
    // Another instance (of another name) that keeps running throughout.
    const running = await start(['--webhook-configuration-name', 'voe-dev-other'], env);
    const killed = await start([], env);
    onCleanup(() => rm(killed.certDir, { recursive: true, force: true }));
    const left = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
    assert.deepStrictEqual(await killed.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
    assert.strictEqual(
      (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' })).metadata?.uid,
      left.metadata?.uid,
      'left behind',
    );

    assert.ok(
      await exists(join(killed.certDir, 'tls.key')),
      'SIGKILL runs no clean-up: the dev serving key is left',
    );
    const next = await start([], env);
    const swept = await next.waitForLog(
      'removed the temporary certificate dir of a voe serve --dev that was killed (it held its dev serving key)',
    );
    assert.strictEqual(swept['certDir'], killed.certDir);
    assert.isFalse(await exists(killed.certDir));
    assert.ok(
      await exists(join(running.certDir, 'tls.key')),
      'the dir of an instance that runs is left alone',
    );
    assert.deepStrictEqual(await running.stop('SIGTERM'), { code: 0, signal: null });
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
      new RegExp(
        `left by voe serve --dev \\(pid ${killed.pid} on host .*, which no longer answers$`,
      ),
    );
    const replaced = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
    assert.notStrictEqual(
      replaced.metadata?.uid,
      left.metadata?.uid,
      'a new object, so the old instance could never delete it',
    );
    assert.ok(urls(replaced).every((u) => u.startsWith(`${next.url}/`)));
    assert.strictEqual((readDevOwner(replaced) as { pid: number }).pid, next.pid);
    assert.deepStrictEqual(await next.stop('SIGTERM'), { code: 0, signal: null }, next.stderr());
    await expectRejection(admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }), {
      code: 404,
    });
  });

  it('a registration edited, then deleted, by someone else while voe serve --dev runs is reported at once, left as it is, and not deleted twice', async () => {
    const serve = await start();
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
    assert.strictEqual(change['level'], 40);
    assert.deepStrictEqual(change['changes'], [
      'pvc-resize.voe.harvesterhci.io: failurePolicy Fail -> Ignore',
      'pvc-resize.voe.harvesterhci.io: timeoutSeconds 10 -> 5',
    ]);
    assert.strictEqual(
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
    assert.strictEqual(deleted['uid'], registered.metadata?.uid);
    await new Promise((r) => setTimeout(r, 1_000));
    await expectRejection(
      admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }),
      { code: 404 },
      'not put back',
    );

    assert.deepStrictEqual(await serve.stop('SIGTERM'), { code: 0, signal: null }, serve.stderr());
    assert.ok(
      serve
        .logs()
        .some(
          (l) => l['msg'] === 'ValidatingWebhookConfiguration was already deleted by someone else',
        ),
    );
    assert.strictEqual(
      serve.logs().filter((l) => /was deleted by someone else while/.test(String(l['msg']))).length,
      1,
      "its own removal at exit is not reported as someone else's",
    );
  });

  it('deleting with the uid of what we registered leaves another object of the same name alone', async () => {
    const body = { metadata: { name: 'voe-dev-uid' }, webhooks: [] };
    const mine = await admission.createValidatingWebhookConfiguration({ body });
    await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev-uid' });
    const theirs = await admission.createValidatingWebhookConfiguration({ body });
    assert.strictEqual(
      await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
        uid: mine.metadata!.uid!,
      }),
      'not-ours',
    );
    assert.strictEqual(
      (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev-uid' })).metadata?.uid,
      theirs.metadata?.uid,
    );
    assert.strictEqual(
      await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
        uid: theirs.metadata!.uid!,
      }),
      'deleted',
    );
    assert.strictEqual(
      await deleteValidatingWebhookConfiguration(cp.kubeConfig, 'voe-dev-uid', {
        uid: theirs.metadata!.uid!,
      }),
      'gone',
    );
  });

  it('deleting our configuration retries a transient failure (503, 429, no answer) and gives up on others at once', async () => {
    const proxy = await startFaultProxy(cp.kubeConfig);
    onCleanup(() => proxy.close());
    const name = 'voe-dev-retry';
    const path = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;
    const deletes = () => proxy.requests.filter((r) => r.method === 'DELETE' && r.path === path);
    const mine = await admission.createValidatingWebhookConfiguration({
      body: { metadata: { name }, webhooks: [] },
    });
    onCleanup(() =>
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
    assert.strictEqual(await deleting, 'deleted');
    assert.strictEqual(deletes().length, 2);
    // Failing every time: given up after the retries, with the error naming the object.
    const again = await admission.createValidatingWebhookConfiguration({
      body: { metadata: { name }, webhooks: [] },
    });
    proxy.inject({ path }, { answer: 429, message: 'injected: too many requests' });
    await expectRejection(
      deleteValidatingWebhookConfiguration(proxy.kubeConfig, name, {
        uid: again.metadata!.uid!,
        retries: 2,
        minRetryMs: 10,
      }),
      {
        code: 'WEBHOOK_REGISTRATION_FAILED',
        message: /^Cannot delete ValidatingWebhookConfiguration voe-dev-retry: /,
      },
    );
    assert.strictEqual(deletes().length, 2 + 3, 'the first try and two retries');
    // Forbidden is no transient failure: one try.
    proxy.inject({ path }, { answer: 403, message: 'injected: forbidden' });
    await expectRejection(
      deleteValidatingWebhookConfiguration(proxy.kubeConfig, name, {
        uid: again.metadata!.uid!,
        minRetryMs: 10,
      }),
      /forbidden/,
    );
    assert.strictEqual(deletes().length, 2 + 3 + 1);
    proxy.heal();
    assert.strictEqual(
      (await admission.readValidatingWebhookConfiguration({ name })).metadata?.uid,
      again.metadata?.uid,
      'still there: nothing deleted it',
    );
  });

  it('registering retries a transient failure, and a create the API server stored but whose answer was lost (504) is taken as ours, not left behind', async () => {
    const proxy = await startFaultProxy(cp.kubeConfig);
    onCleanup(() => proxy.close());
    const collection = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    const creates = () =>
      proxy.requests.filter((r) => r.method === 'POST' && r.path === collection);
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
    onCleanup(remove('voe-dev-lost'));
    onCleanup(remove('voe-dev-busy'));

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
    assert.strictEqual(uid, stored.metadata?.uid);
    assert.deepStrictEqual(
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
    assert.strictEqual(
      busy.uid,
      (await admission.readValidatingWebhookConfiguration({ name: 'voe-dev-busy' })).metadata?.uid,
    );
    assert.deepStrictEqual(
      creates()
        .slice(before)
        .map((r) => r.status),
      [503, 503, 201],
    );

    // Another instance's registration (another id) is still judged as before: it answers nowhere, so it is replaced.
    const replaced = await registerDevConfiguration(
      cp.kubeConfig,
      body('voe-dev-busy', 'busy0002'),
      {
        logger: logs.logger,
      },
    );
    assert.notStrictEqual(replaced.uid, busy.uid);
  });

  it('a configuration of that name that voe serve --dev did not register (the in-cluster manifest) is refused and left untouched', async () => {
    const manifest = parse(
      await readFile(new URL('../../../../../manifests/webhook.yaml', import.meta.url), 'utf8'),
    ) as V1ValidatingWebhookConfiguration;
    const inCluster = await admission.createValidatingWebhookConfiguration({ body: manifest });
    // Its Service does not exist here and its failurePolicy is Fail: remove it before the file's other users of the cluster.
    onCleanup(() =>
      admission.deleteValidatingWebhookConfiguration({ name: 'voe' }).then(() => undefined),
    );
    const serve = spawnServeDev(cp.kubeconfigPath, ['--webhook-configuration-name', 'voe']);
    onCleanup(() => {
      serve.child.kill('SIGKILL');
    });
    assert.deepStrictEqual(await serve.exited, { code: 2, signal: null });
    assert.match(
      serve.stderr(),
      /^voe: WEBHOOK_CONFIGURATION_NOT_OURS: ValidatingWebhookConfiguration voe exists and was not registered by voe serve --dev \(no voe\.harvesterhci\.io\/serve-dev annotation\): it may be the in-cluster webhook \(manifests\/webhook\.yaml\) or someone else's\. Nothing was changed\./m,
    );
    const after = await admission.readValidatingWebhookConfiguration({ name: 'voe' });
    assert.strictEqual(after.metadata?.uid, inCluster.metadata?.uid);
    assert.strictEqual(after.metadata?.resourceVersion, inCluster.metadata?.resourceVersion);
    assert.isFalse(await exists(await certDirOf(serve)));
  });
});
