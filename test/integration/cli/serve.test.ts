import { test } from 'node:test';
import assert from 'node:assert/strict';
import { access } from 'node:fs/promises';
import { AdmissionregistrationV1Api, ApiextensionsV1Api, CustomObjectsApi, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { eventually } from '../../support/held-clock.js';
import { servingUrl, spawnServeDev, type ServeDevProcess } from '../../support/serve-dev-process.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false);
const registered = (name = 'voe-dev'): Promise<boolean> =>
  admission.readValidatingWebhookConfiguration({ name }).then(() => true, (e: { code?: number }) => { if (e.code === 404) return false; throw e; });

function spawn(t: { after: (fn: () => void) => void }, args: string[] = [], kubeconfig = cp.kubeconfigPath): ServeDevProcess {
  const serve = spawnServeDev(kubeconfig, args);
  t.after(() => { serve.child.kill('SIGKILL'); });
  return serve;
}

const certDirOf = async (serve: ServeDevProcess): Promise<string> =>
  String((await serve.waitForLog('dev certificates written (ca.crt, tls.crt, tls.key)'))['certDir']);

/** Stops `serve` with `signal`; resolves with the exit and how long it took. */
async function stopTimed(serve: ServeDevProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const sent = Date.now();
  const exit = await serve.stop(signal);
  return { ...exit, ms: Date.now() - sent };
}

test('a signal while voe serve --dev waits for the API server\'s first call removes the registration and the certificate dir, and exits at once', async (t) => {
  // A Setting schema that refuses the dry-run probe's object (value ''): the API server rejects the
  // probe before it calls any webhook, so start-up waits the full 30 s for a call that never comes,
  // as it does when the API server cannot reach the webhook.
  const crds = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
  const original = await crds.readCustomResourceDefinition({ name: 'settings.harvesterhci.io' });
  const strict = structuredClone(original) as V1CustomResourceDefinition;
  strict.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['value'] = { type: 'string', minLength: 1 };
  await crds.replaceCustomResourceDefinition({ name: original.metadata!.name!, body: strict });
  t.after(async () => {
    const current = await crds.readCustomResourceDefinition({ name: original.metadata!.name! });
    await crds.replaceCustomResourceDefinition({ name: original.metadata!.name!, body: { ...current, spec: original.spec } });
  });
  const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
  await eventually(() => custom.createClusterCustomObject({ group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings', dryRun: 'All',
    body: { apiVersion: 'harvesterhci.io/v1beta1', kind: 'Setting', metadata: { name: 'probe-check' }, value: '' } }).then(() => false, (e: { code?: number }) => e.code === 422),
  20_000, 'the stricter Setting schema in force');

  const serve = spawn(t);
  const certDir = await certDirOf(serve);
  await serve.waitForLog('ValidatingWebhookConfiguration registered');
  assert.equal(await registered(), true);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.doesNotMatch(serve.stderr(), /webhooks at/, 'still starting');

  const exit = await stopTimed(serve, 'SIGINT');
  assert.equal(exit.signal, null, serve.stderr());
  assert.equal(exit.code, 0, serve.stderr());
  assert.ok(exit.ms < 10_000, `exited ${exit.ms} ms after SIGINT, not after the 30 s wait`);
  assert.equal(await registered(), false, 'the configuration is removed');
  assert.equal(await exists(certDir), false, 'the temporary certificate dir (with tls.key) is removed');
  assert.ok(serve.logs().some((l) => l['msg'] === 'stopped during start-up; what it had changed was undone' && l['signal'] === 'SIGINT'));
  assert.doesNotMatch(serve.stderr(), /still running/, 'nothing kept the process alive');
});

test('SIGTERM while the caches cannot sync (every list refused by RBAC) removes the certificate dir and exits at once', async (t) => {
  const { path: nobody } = await cp.mintKubeConfig('nobody');
  const serve = spawn(t, [], nobody);
  const certDir = await certDirOf(serve);
  await serve.waitForLog(/informer list\/watch failed/);
  const exit = await stopTimed(serve, 'SIGTERM');
  assert.deepEqual([exit.code, exit.signal], [0, null], serve.stderr());
  assert.ok(exit.ms < 10_000, `exited ${exit.ms} ms after SIGTERM`);
  assert.equal(await exists(certDir), false);
  assert.equal(await registered(), false, 'never registered');
  assert.doesNotMatch(serve.stderr(), /still running/);
});

test('SIGHUP (the terminal closed) stops a started voe serve --dev like SIGINT: registration and certificate dir removed, exit 0', async (t) => {
  const serve = spawn(t);
  const certDir = await certDirOf(serve);
  await servingUrl(serve);
  assert.equal(await registered(), true);
  const exit = await stopTimed(serve, 'SIGHUP');
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
  assert.match(serve.stderr(), new RegExp(
    '^voe: WEBHOOK_CLEANUP_FAILED: Could not remove ValidatingWebhookConfiguration voe-dev \\(uid [0-9a-f-]+\\): .*ECONNREFUSED.*\\. ' +
    `It still sends growing PVCs, VM volumeClaimTemplates changes and the Setting to ${url.replace(/\./g, '\\.')}, which no longer answers: ` +
    'with failurePolicy Fail the API server refuses them until it is deleted\\. Delete it by hand: kubectl delete validatingwebhookconfiguration voe-dev$', 'm'));
  assert.equal(await exists(certDir), false, 'the rest of the cleanup still ran');
  assert.doesNotMatch(serve.stderr(), /still running/);
  // It is indeed left: delete it as the message says.
  assert.equal(await registered(), true);
  await admission.deleteValidatingWebhookConfiguration({ name: 'voe-dev' });
});
