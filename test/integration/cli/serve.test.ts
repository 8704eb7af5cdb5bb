import { test } from 'node:test';
import assert from 'node:assert/strict';
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
import { sumSamples } from '../../../src/webhook/index.js';
import { apiServerRequests } from '../../support/api-server-metrics.js';
import { eventually } from '../../support/held-clock.js';
import { httpsRequest } from '../../support/webhook-client.js';
import {
  servingUrl,
  spawnServeDev,
  type ServeDevProcess,
} from '../../support/serve-dev-process.js';
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

function spawn(
  t: { after: (fn: () => void) => void },
  args: string[] = [],
  kubeconfig = cp.kubeconfigPath,
): ServeDevProcess {
  const serve = spawnServeDev(kubeconfig, args);
  t.after(() => {
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

test(
  "a signal while voe serve --dev waits for the API server's first call removes the registration and the certificate dir, and exits at once",
  { timeout: 300_000 },
  async (t) => {
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
    t.after(async () => {
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

    const serve = spawn(t, ['--registration-timeout', A_DAY]);
    const certDir = await certDirOf(serve);
    const registeredLine = await serve.waitForLog('ValidatingWebhookConfiguration registered');
    assert.equal(registeredLine['configuration'], 'voe-dev');
    assert.equal(
      registeredLine['name'],
      'voe-webhook',
      'the logger\'s name is not overwritten by a second "name" key',
    );
    assert.equal(await registered(), true);
    // In the wait: the API server refused voe's first probe, so voe waits to probe again.
    await eventually(
      async () => (await refusedProbes()) > refusedBefore,
      30_000,
      "the API server to refuse voe's dry-run probe",
    );
    assert.doesNotMatch(serve.stderr(), /webhooks at/, 'still starting');

    // The wait for a call that never comes would last a day: the exit is the SIGINT honoured in it.
    const exit = await serve.stop('SIGINT');
    assert.equal(exit.signal, null, serve.stderr());
    assert.equal(exit.code, 0, serve.stderr());
    assert.doesNotMatch(serve.stderr(), /WEBHOOK_REGISTRATION_FAILED/, 'not the end of the wait');
    assert.equal(await registered(), false, 'the configuration is removed');
    assert.equal(
      await exists(certDir),
      false,
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
    assert.doesNotMatch(serve.stderr(), /still running/, 'nothing kept the process alive');
  },
);

test(
  'SIGTERM while the caches cannot sync (every list refused by RBAC) removes the certificate dir and exits at once',
  { timeout: 300_000 },
  async (t) => {
    const { path: nobody } = await cp.mintKubeConfig('nobody');
    const serve = spawn(t, ['--cache-sync-timeout', A_DAY], nobody);
    const certDir = await certDirOf(serve);
    await serve.waitForLog(/informer list\/watch failed/);
    // The caches never sync and it would wait a day for them: the exit is the SIGTERM honoured in that wait.
    const exit = await serve.stop('SIGTERM');
    assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
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
    assert.doesNotMatch(serve.stderr(), /WEBHOOK_REGISTRATION_FAILED/, 'not the end of the wait');
    assert.equal(await exists(certDir), false);
    assert.equal(await registered(), false, 'never registered');
    assert.doesNotMatch(serve.stderr(), /still running/);
  },
);

test('--cache-sync-timeout sets how long voe serve --dev waits for the caches: then WEBHOOK_REGISTRATION_FAILED naming them, nothing registered or left behind', async (t) => {
  const { path: nobody } = await cp.mintKubeConfig('nobody');
  const serve = spawn(t, ['--cache-sync-timeout', '1'], nobody);
  const certDir = await certDirOf(serve);
  const exit = await serve.exited;
  assert.deepEqual([exit.code, exit.signal], [2, null], serve.stderr());
  assert.match(
    serve.stderr(),
    /^voe: WEBHOOK_REGISTRATION_FAILED: The informer caches did not sync within 1 s: persistentvolumeclaims, .* never listed; the webhook was not registered\./m,
  );
  assert.equal(await registered(), false);
  assert.equal(await exists(certDir), false);
});

test('the same voe serve --dev run again with the same --cert-dir is refused before it writes anything: the running one keeps serving the certificate its registration trusts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-serve-certs-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const first = spawn(t, ['--cert-dir', dir]);
  const { port } = await servingUrl(first);
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
  const certificate = await readFile(join(dir, 'tls.crt'), 'utf8');
  const second = spawn(t, ['--cert-dir', dir, '--webhook-configuration-name', 'voe-dev-second']);
  const exit = await Promise.race([
    second.exited,
    servingUrl(second).then(
      () => ({ code: 'served' }),
      () => second.exited,
    ),
  ]);
  assert.equal(
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
  assert.equal(
    await readFile(join(dir, 'ca.crt'), 'utf8'),
    ca,
    'the CA the first one registered is untouched',
  );
  assert.equal(
    await readFile(join(dir, 'tls.crt'), 'utf8'),
    certificate,
    'the certificate it serves is untouched',
  );
  assert.equal(await registered('voe-dev-second'), false);
  // Still answering over TLS verified with the CA it registered (no reload of another pair).
  const live = await httpsRequest(port, ca, { method: 'GET', path: '/livez' });
  assert.equal(live.status, 200);
  assert.equal((await first.stop('SIGTERM')).code, 0, first.stderr());
  await assert.rejects(
    access(join(dir, 'voe-serve.lock')),
    { code: 'ENOENT' },
    'the lock is released on exit',
  );
  assert.equal(
    await exists(join(dir, 'tls.crt')),
    true,
    'a --cert-dir given by the user is left with its certificate',
  );
});

test('SIGHUP (the terminal closed) stops a started voe serve --dev like SIGINT: registration and certificate dir removed, exit 0', async (t) => {
  const serve = spawn(t);
  const certDir = await certDirOf(serve);
  await servingUrl(serve);
  assert.equal(await registered(), true);
  const exit = await serve.stop('SIGHUP');
  assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
  assert.equal(await registered(), false);
  assert.equal(await exists(certDir), false);
  assert.ok(serve.logs().some((l) => l['msg'] === 'stopping' && l['signal'] === 'SIGHUP'));
  assert.doesNotMatch(serve.stderr(), /still running/);
});

test('when the registration cannot be removed (API server down at SIGTERM) voe serve says what is left and how to delete it, and exits 2', async (t) => {
  const serve = spawn(t);
  const certDir = await certDirOf(serve);
  const { url } = await servingUrl(serve);
  await cp.stopApiServer();
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await serve.stop('SIGTERM');
  } finally {
    await cp.startApiServer();
  }
  assert.deepEqual([exit.code, exit.signal], [2, null], serve.stderr());
  assert.match(
    serve.stderr(),
    new RegExp(
      '^voe: WEBHOOK_CLEANUP_FAILED: Could not remove ValidatingWebhookConfiguration voe-dev \\(uid [0-9a-f-]+\\): .*ECONNREFUSED.*\\. ' +
        `It still sends PVC storage request changes, VM volumeClaimTemplates changes and the Setting to ${url.replace(/\./g, '\\.')}, which no longer answers: ` +
        'with failurePolicy Fail the API server refuses them until it is deleted\\. Delete it by hand: kubectl delete validatingwebhookconfiguration voe-dev$',
      'm',
    ),
  );
  assert.equal(await exists(certDir), false, 'the rest of the cleanup still ran');
  assert.doesNotMatch(serve.stderr(), /still running/);
  // It is indeed left: delete it as the message says.
  assert.equal(await registered(), true);
  await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev' });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The worker pids `voe serve --workers` logged once they all listened. */
async function workerPids(serve: ServeDevProcess): Promise<number[]> {
  return (await serve.waitForLog('webhook workers listening'))['pids'] as number[];
}

test('voe serve --dev --workers 2: two processes answer on one port, /readyz and /metrics speak for both; Ctrl-C (SIGINT to every process of the group) removes the registration and ends them all', async (t) => {
  const serve = spawn(t, ['--workers', '2']);
  const certDir = await certDirOf(serve);
  const { port } = await servingUrl(serve);
  const pids = await workerPids(serve);
  assert.equal(pids.length, 2);
  t.after(() => {
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
  });
  assert.deepEqual(
    serve
      .logs()
      .filter((l) => l['msg'] === 'webhook server listening')
      .map((l) => l['pid'])
      .sort(),
    [...pids].sort(),
    'each worker serves',
  );
  // Logged just before 'webhooks at', but written to stdout asynchronously: it may arrive after it.
  await serve.waitForLog('the API server calls the webhook', 10_000);
  assert.equal(await registered(), true);

  const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
  const get = (path: string) =>
    httpsRequest(port, ca, { path, method: 'GET', agent: new Agent({ keepAlive: false }) });
  for (let i = 0; i < 4; i++) {
    assert.equal((await get('/readyz')).status, 200);
    // The API server's dry-run probe at start-up reached one worker; every worker's /metrics shows it,
    // as an allowed review (it sends Harvester's stock Setting), not as a refusal a dashboard would count.
    const metrics = (await get('/metrics')).body;
    assert.ok(
      sumSamples(metrics, 'voe_webhook_requests_total', {
        webhook: 'setting',
        decision: 'allowed',
        reason: 'setting-valid',
      }) >= 1,
    );
    assert.equal(
      sumSamples(metrics, 'voe_webhook_requests_total', {
        webhook: 'setting',
        decision: 'refused',
      }),
      0,
    );
  }

  // A terminal's Ctrl-C reaches every process of its group: the workers wait for the primary's word.
  for (const pid of [serve.pid, ...pids]) process.kill(pid, 'SIGINT');
  const exit = await serve.exited;
  assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
  assert.equal(await registered(), false, 'the configuration is removed');
  assert.equal(await exists(certDir), false);
  assert.deepEqual(pids.filter(alive), [], 'every worker exited');
  assert.doesNotMatch(serve.stderr(), /still running/);
});

test('voe serve --dev --workers 2: a worker killed while serving is replaced; the registration stays; SIGTERM then ends all, exit 0', async (t) => {
  const serve = spawn(t, ['--workers', '2']);
  const certDir = await certDirOf(serve);
  const { port } = await servingUrl(serve);
  const [first, second] = (await workerPids(serve)) as [number, number];
  t.after(() => {
    for (const pid of [first, second].filter(alive)) process.kill(pid, 'SIGKILL');
  });
  await serve.waitForLog('the API server calls the webhook', 10_000);
  process.kill(first, 'SIGKILL');
  const ended = await serve.waitForLog(
    'webhook worker ended; replacing it (the new one serves once its caches are synced)',
    30_000,
  );
  assert.deepEqual(
    [ended['workerPid'], ended['signal'], ended['why']],
    [first, 'SIGKILL', 'was killed by SIGKILL while serving'],
  );
  const replacement = ended['replacementPid'] as number;
  t.after(() => {
    if (alive(replacement)) process.kill(replacement, 'SIGKILL');
  });
  await serve.waitForLog(
    'webhook worker replaced: the new one serves (its caches are synced)',
    60_000,
    (l) => l['workerPid'] === replacement,
  );
  assert.equal(serve.child.exitCode, null, 'still serving');
  assert.equal(await registered(), true, 'the registration stays');
  const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
  assert.equal(
    (
      await httpsRequest(port, ca, {
        path: '/readyz',
        method: 'GET',
        agent: new Agent({ keepAlive: false }),
      })
    ).body,
    'ok',
  );
  const exit = await serve.stop('SIGTERM');
  assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
  assert.equal(await registered(), false);
  assert.equal(await exists(certDir), false);
  assert.deepEqual([second, replacement].filter(alive), []);
});

test('voe serve --dev --workers 2: workers that cannot listen (port taken) are reported once; nothing is registered or left behind', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as AddressInfo).port;
  const serve = spawn(t, ['--workers', '2', '--port', String(port)]);
  const certDir = await certDirOf(serve);
  const exit = await serve.exited;
  assert.deepEqual([exit.code, exit.signal], [2, null], serve.stderr());
  const lines = serve.stderr().trim().split('\n');
  assert.equal(lines.length, 1, serve.stderr());
  assert.match(
    lines[0]!,
    new RegExp(
      `^voe: WEBHOOK_WORKER_FAILED: Webhook worker \\d+ \\(pid \\d+\\) could not start: WEBHOOK_LISTEN_FAILED: Cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`,
    ),
  );
  assert.equal(await registered(), false);
  assert.equal(await exists(certDir), false);

  const zero = spawnServeDev(cp.kubeconfigPath, ['--workers', '0']);
  assert.notEqual((await zero.exited).code, 0);
  assert.match(zero.stderr(), /--workers.*must be an integer from 1 to 64/);
});

test(
  'voe serve --dev --workers 2: a worker killed while the caches are still syncing is replaced and the start-up goes on waiting; SIGTERM then ends it at once, nothing registered',
  { timeout: 300_000 },
  async (t) => {
    const { path: nobody } = await cp.mintKubeConfig('nobody');
    const serve = spawn(t, ['--workers', '2', '--cache-sync-timeout', A_DAY], nobody);
    const certDir = await certDirOf(serve);
    const [first, second] = (await workerPids(serve)) as [number, number];
    t.after(() => {
      for (const pid of [first, second].filter(alive)) process.kill(pid, 'SIGKILL');
    });
    await serve.waitForLog(/informer list\/watch failed/);
    process.kill(first, 'SIGKILL');
    const ended = await serve.waitForLog(
      'webhook worker ended; replacing it (the new one serves once its caches are synced)',
      30_000,
    );
    assert.equal(ended['workerPid'], first);
    const replacement = ended['replacementPid'] as number;
    t.after(() => {
      if (alive(replacement)) process.kill(replacement, 'SIGKILL');
    });
    // The replacement cannot sync either (RBAC), so it never listens; the start-up still waits for the caches.
    await serve.waitForLog(
      'replacing a webhook worker that ended: listening once the caches are synced',
      30_000,
      (l) => l['pid'] === replacement,
    );
    assert.equal(serve.child.exitCode, null);
    const exit = await serve.stop('SIGTERM');
    assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
    assert.equal(await registered(), false, 'never registered');
    assert.equal(await exists(certDir), false);
    assert.deepEqual([second, replacement].filter(alive), []);
  },
);
