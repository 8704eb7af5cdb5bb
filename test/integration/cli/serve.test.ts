import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Agent } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  CustomObjectsApi,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { sumSamples } from '../../support/webhook/sum-samples.js';
import { apiServerRequests } from '../../support/webhook/api-server-metrics.js';
import { eventually } from '../../support/eventually.js';
import { httpsRequest } from '../../support/webhook/webhook-client.js';
import {
  servingUrl,
  spawnServeDev,
  type ServeDevProcess,
} from '../../support/webhook/serve-dev-process.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );
const registered = (name = 'voe-dev'): Promise<boolean> =>
  admission.readValidatingWebhookConfiguration({ name }).then(
    () => true,
    (e: { code?: number }) => {
      if (e.code === 404) return false;
      throw e;
    },
  );

function spawn(args: string[] = [], kubeconfig = cp.kubeconfigPath): ServeDevProcess {
  const serve = spawnServeDev(kubeconfig, args);
  onCleanup(() => {
    serve.child.kill('SIGKILL');
  });
  return serve;
}

const certDirOf = async (serve: ServeDevProcess): Promise<string> =>
  String(
    (await serve.waitForLog('dev certificates written (ca.crt, tls.crt, tls.key)'))['certDir'],
  );

/**
 * A start-up wait that would last a day (--cache-sync-timeout, --registration-timeout): a test
 * that stops voe during it and sees it exit (within the test's timeout) sees the wait end on that
 * stop, not on its own.
 */
const A_DAY = String(24 * 60 * 60);

describe('voe serve --dev against a real API server', () => {
  it("a signal while voe serve --dev waits for the API server's first call removes the registration and the certificate dir, and exits at once", async () => {
    // A Setting schema that refuses the dry-run probe's object (value ''): the API server rejects the
    // probe before it calls any webhook, so start-up waits the full 30 s for a call that never comes,
    // as it does when the API server cannot reach the webhook.
    const crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const original = await crds.readCustomResourceDefinition({ name: 'settings.harvesterhci.io' });
    const strict = structuredClone(original) as V1CustomResourceDefinition;
    strict.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['value'] = {
      type: 'string',
      minLength: 1,
    };
    await crds.replaceCustomResourceDefinition({ name: original.metadata!.name!, body: strict });
    onCleanup(async () => {
      const current = await crds.readCustomResourceDefinition({ name: original.metadata!.name! });
      await crds.replaceCustomResourceDefinition({
        name: original.metadata!.name!,
        body: { ...current, spec: original.spec },
      });
    });
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    await eventually(
      () =>
        custom
          .createClusterCustomObject({
            group: 'harvesterhci.io',
            version: 'v1beta1',
            plural: 'settings',
            dryRun: 'All',
            body: {
              apiVersion: 'harvesterhci.io/v1beta1',
              kind: 'Setting',
              metadata: { name: 'probe-check' },
              value: '',
            },
          })
          .then(
            () => false,
            (e: { code?: number }) => e.code === 422,
          ),
      20_000,
      'the stricter Setting schema in force',
    );
    // The dry-run Setting creates the API server has refused (422), the probes of voe among them.
    const refusedProbes = () =>
      apiServerRequests(cp.kubeConfig, {
        verb: 'POST',
        group: 'harvesterhci.io',
        resource: 'settings',
        dry_run: 'All',
        code: '422',
      });
    const refusedBefore = await refusedProbes();

    const serve = spawn(['--registration-timeout', A_DAY]);
    const certDir = await certDirOf(serve);
    const registeredLine = await serve.waitForLog('ValidatingWebhookConfiguration registered');
    assert.strictEqual(registeredLine['configuration'], 'voe-dev');
    assert.strictEqual(
      registeredLine['name'],
      'voe-webhook',
      'the logger\'s name is not overwritten by a second "name" key',
    );
    assert.isTrue(await registered());
    // In the wait: the API server refused voe's first probe, so voe waits to probe again.
    await eventually(
      async () => (await refusedProbes()) > refusedBefore,
      30_000,
      "the API server to refuse voe's dry-run probe",
    );
    assert.notMatch(serve.stderr(), /webhooks at/, 'still starting');

    // The wait for a call that never comes would last a day: the exit is the SIGINT honoured in it.
    const exit = await serve.stop('SIGINT');
    assert.isNull(exit.signal, serve.stderr());
    assert.strictEqual(exit.code, 0, serve.stderr());
    assert.notMatch(serve.stderr(), /WEBHOOK_REGISTRATION_FAILED/, 'not the end of the wait');
    assert.isFalse(await registered(), 'the configuration is removed');
    assert.isFalse(
      await exists(certDir),
      'the temporary certificate dir (with tls.key) is removed',
    );
    assert.ok(
      serve
        .logs()
        .some(
          (l) =>
            l['msg'] === 'stopped during start-up; what it had changed was undone' &&
            l['signal'] === 'SIGINT',
        ),
    );
    assert.notMatch(serve.stderr(), /still running/, 'nothing kept the process alive');
  }).timeout(300_000);

  it('SIGTERM while the caches cannot sync (every list refused by RBAC) removes the certificate dir and exits at once', async () => {
    const { path: nobody } = await cp.mintKubeConfig('nobody');
    const serve = spawn(['--cache-sync-timeout', A_DAY], nobody);
    const certDir = await certDirOf(serve);
    await serve.waitForLog(/informer list\/watch failed/);
    // The caches never sync and it would wait a day for them: the exit is the SIGTERM honoured in that wait.
    const exit = await serve.stop('SIGTERM');
    assert.deepStrictEqual([exit.code, exit.signal], [0, null], serve.stderr());
    assert.ok(
      serve
        .logs()
        .some(
          (l) =>
            l['msg'] === 'stopped during start-up; what it had changed was undone' &&
            l['signal'] === 'SIGTERM',
        ),
      serve.stdout(),
    );
    assert.notMatch(serve.stderr(), /WEBHOOK_REGISTRATION_FAILED/, 'not the end of the wait');
    assert.isFalse(await exists(certDir));
    assert.isFalse(await registered(), 'never registered');
    assert.notMatch(serve.stderr(), /still running/);
  }).timeout(300_000);

  it('--cache-sync-timeout sets how long voe serve --dev waits for the caches: then WEBHOOK_REGISTRATION_FAILED naming them, nothing registered or left behind', async () => {
    const { path: nobody } = await cp.mintKubeConfig('nobody');
    const serve = spawn(['--cache-sync-timeout', '1'], nobody);
    const certDir = await certDirOf(serve);
    const exit = await serve.exited;
    assert.deepStrictEqual([exit.code, exit.signal], [2, null], serve.stderr());
    assert.match(
      serve.stderr(),
      /^voe: WEBHOOK_REGISTRATION_FAILED: The informer caches did not sync within 1 s: persistentvolumeclaims, .* never listed; the webhook was not registered\./m,
    );
    assert.isFalse(await registered());
    assert.isFalse(await exists(certDir));
  });

  it('the same voe serve --dev run again with the same --cert-dir is refused before it writes anything: the running one keeps serving the certificate its registration trusts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-serve-certs-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const first = spawn(['--cert-dir', dir]);
    const { port } = await servingUrl(first);
    const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
    const certificate = await readFile(join(dir, 'tls.crt'), 'utf8');
    const second = spawn(['--cert-dir', dir, '--webhook-configuration-name', 'voe-dev-second']);
    const exit = await Promise.race([
      second.exited,
      servingUrl(second).then(
        () => ({ code: 'served' }),
        () => second.exited,
      ),
    ]);
    assert.strictEqual(
      exit.code,
      2,
      `the second one ${exit.code === 'served' ? "served, over the first one's certificate" : 'ended otherwise'}: ${second.stderr()}`,
    );
    assert.match(
      second.stderr(),
      new RegExp(
        `^voe: WEBHOOK_CERT_DIR_IN_USE: --cert-dir ${dir} is used by another voe serve --dev \\(pid ${first.pid}\\)`,
        'm',
      ),
    );
    assert.strictEqual(
      await readFile(join(dir, 'ca.crt'), 'utf8'),
      ca,
      'the CA the first one registered is untouched',
    );
    assert.strictEqual(
      await readFile(join(dir, 'tls.crt'), 'utf8'),
      certificate,
      'the certificate it serves is untouched',
    );
    assert.isFalse(await registered('voe-dev-second'));
    // Still answering over TLS verified with the CA it registered (no reload of another pair).
    const live = await httpsRequest(port, ca, { method: 'GET', path: '/livez' });
    assert.strictEqual(live.status, 200);
    assert.strictEqual((await first.stop('SIGTERM')).code, 0, first.stderr());
    await expectRejection(
      access(join(dir, 'voe-serve.lock')),
      { code: 'ENOENT' },
      'the lock is released on exit',
    );
    assert.isTrue(
      await exists(join(dir, 'tls.crt')),
      'a --cert-dir given by the user is left with its certificate',
    );
  });

  it('SIGHUP (the terminal closed) stops a started voe serve --dev like SIGINT: registration and certificate dir removed, exit 0', async () => {
    const serve = spawn();
    const certDir = await certDirOf(serve);
    await servingUrl(serve);
    assert.isTrue(await registered());
    const exit = await serve.stop('SIGHUP');
    assert.deepStrictEqual([exit.code, exit.signal], [0, null], serve.stderr());
    assert.isFalse(await registered());
    assert.isFalse(await exists(certDir));
    assert.ok(serve.logs().some((l) => l['msg'] === 'stopping' && l['signal'] === 'SIGHUP'));
    assert.notMatch(serve.stderr(), /still running/);
  });

  it('when the registration cannot be removed (API server down at SIGTERM) voe serve says what is left and how to delete it, and exits 2', async () => {
    const serve = spawn();
    const certDir = await certDirOf(serve);
    const { url } = await servingUrl(serve);
    await cp.stopApiServer();
    let exit: { code: number | null; signal: NodeJS.Signals | null };
    try {
      exit = await serve.stop('SIGTERM');
    } finally {
      await cp.startApiServer();
    }
    assert.deepStrictEqual([exit.code, exit.signal], [2, null], serve.stderr());
    assert.match(
      serve.stderr(),
      new RegExp(
        '^voe: WEBHOOK_CLEANUP_FAILED: Could not remove ValidatingWebhookConfiguration voe-dev \\(uid [0-9a-f-]+\\): .*ECONNREFUSED.*\\. ' +
          `It still sends PVC storage request changes, VM volumeClaimTemplates changes and the Setting to ${url.replace(/\./g, '\\.')}, which no longer answers: ` +
          'with failurePolicy Fail the API server refuses them until it is deleted\\. Delete it by hand: kubectl delete validatingwebhookconfiguration voe-dev$',
        'm',
      ),
    );
    assert.isFalse(await exists(certDir), 'the rest of the cleanup still ran');
    assert.notMatch(serve.stderr(), /still running/);
    // It is indeed left: delete it as the message says.
    assert.isTrue(await registered());
    await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev' });
  });

  it('voe serve --dev: /readyz and /metrics answer once it serves, the start-up probe counted as an allowed setting review; SIGINT removes the registration and the certificate dir', async () => {
    const serve = spawn();
    const certDir = await certDirOf(serve);
    const { port } = await servingUrl(serve);
    // Logged just before 'webhooks at', but written to stdout asynchronously: it may arrive after it.
    await serve.waitForLog('the API server calls the webhook', 10_000);
    assert.isTrue(await registered());

    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const get = (path: string) =>
      httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
    assert.strictEqual((await get('/readyz')).status, 200);
    // The API server's dry-run probe at start-up shows in /metrics as an allowed review (it sends
    // Harvester's stock Setting), not as a refusal a dashboard would count.
    const metrics = (await get('/metrics')).body;
    assert.ok(
      sumSamples(metrics, 'voe_webhook_requests_total', {
        webhook: 'setting',
        decision: 'allowed',
        reason: 'setting-valid',
      }) >= 1,
    );
    assert.strictEqual(
      sumSamples(metrics, 'voe_webhook_requests_total', {
        webhook: 'setting',
        decision: 'refused',
      }),
      0,
    );

    const exit = await serve.stop('SIGINT');
    assert.deepStrictEqual([exit.code, exit.signal], [0, null], serve.stderr());
    assert.isFalse(await registered(), 'the configuration is removed');
    assert.isFalse(await exists(certDir));
    assert.notMatch(serve.stderr(), /still running/);
  });

  it('voe serve --dev on a port that is taken says so once and exits 2; nothing is registered or left behind', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onCleanup(() => taken.close());
    const port = (taken.address() as AddressInfo).port;
    const serve = spawn(['--port', String(port)]);
    const certDir = await certDirOf(serve);
    const exit = await serve.exited;
    assert.deepStrictEqual([exit.code, exit.signal], [2, null], serve.stderr());
    const lines = serve.stderr().trim().split('\n');
    assert.strictEqual(lines.length, 1, serve.stderr());
    assert.match(
      lines[0]!,
      new RegExp(
        `^voe: WEBHOOK_LISTEN_FAILED: Cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\. Pick another --port or stop what uses it\\.$`,
      ),
    );
    assert.isFalse(await registered());
    assert.isFalse(await exists(certDir));
  });
});
