import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { httpsRequest, pvcReview, writeServingFiles } from '../support/webhook-client.js';
import { eventually } from '../support/held-clock.js';
import { useControlPlane } from '../support/use-control-plane.js';
import { writeUnreachableKubeconfig } from '../support/unreachable-kubeconfig.js';

const cp = await useControlPlane();

const MAIN = 'dist/src/cli/main.js';

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

test('voe serve without --dev needs the certificate files', async (t) => {
  const files = await writeServingFiles();
  t.after(() => files.cleanup());
  const result = await run(['serve', '--kubeconfig', await writeUnreachableKubeconfig(files.dir), '--port', '0']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /voe: WEBHOOK_INVALID_OPTIONS: .*--tls-cert-file and --tls-key-file/);
  const bad = await run(['serve', '--port', '70000']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /must be an integer from 0 to 65535/);
});

test('voe serve with certificate files watches the cluster, answers reviews, probes and metrics, and stops on SIGTERM', async (t) => {
  const files = await writeServingFiles();
  const child = spawn(process.execPath, [MAIN, 'serve', '--kubeconfig', cp.kubeconfigPath, '--tls-cert-file', files.certFile,
    '--tls-key-file', files.keyFile, '--port', '0', '--bind-address', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(async () => { if (child.exitCode === null) child.kill('SIGKILL'); await files.cleanup(); });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const match = /webhooks at https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  const ca = files.ca.certificatePem;
  // In cluster the server listens at once and reports ready when its informers have synced (the
  // kubelet's readiness probe); reviews before that are refused with 500. Wait as the probe would.
  await eventually(async () => (await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).status === 200, 30_000, '/readyz 200');
  const review = await httpsRequest(port, ca, { path: '/validate/pvc-resize', body: JSON.stringify(pvcReview('cli-1')) });
  assert.deepEqual((review.json() as { response: unknown }).response, { uid: 'cli-1', allowed: true });
  for (const path of ['/validate/vm', '/validate/setting']) {
    assert.equal((await httpsRequest(port, ca, { path, body: JSON.stringify(pvcReview('x')) })).status, 200);
  }
  assert.equal((await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).status, 200);
  assert.match((await httpsRequest(port, ca, { path: '/metrics', method: 'GET' })).body, /voe_webhook_requests_total\{webhook="pvc-resize",decision="allowed",reason="allowed-offline"\} 1/);
  const exitCode = await new Promise<number | null>((resolve) => { child.on('exit', resolve); child.kill('SIGTERM'); });
  assert.equal(exitCode, 0, stderr);
  assert.match(stdout, /"msg":"webhook server listening"/);
  assert.ok(!stdout.includes('PRIVATE KEY'));
});
