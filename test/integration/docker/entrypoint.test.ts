/**
 * The images' entrypoint, run outside a container as the image runs it: tini, then node on voe's
 * main module (the Dockerfile's /app mapped onto this clone's build). With no arguments it runs the
 * image's CMD; with the host chart's Deployment arguments it serves, and a SIGTERM sent to tini
 * (what the kubelet sends to PID 1) reaches voe, which stops cleanly (exit 0) and leaves no process.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execForm, parseDockerfile } from '../../support/dockerfile.js';
import { useChartControlPlane } from '../../support/charts/cluster.js';
import { HOST_CHART, oneOf, useHelm } from '../../support/charts/render.js';
import { eventually } from '../../support/eventually.js';
import { writeServingFiles } from '../../support/webhook/webhook-client.js';
import { onCleanup } from '../../support/cleanup.js';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** The image's ENTRYPOINT with /app (the image's copy of the package) replaced by this clone. */
function entrypoint(): string[] {
  const command = execForm(parseDockerfile(), 'voe', 'ENTRYPOINT')!;
  return command.map((part) => part.replace(/^\/app\//, REPO));
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]) {
  const [file, ...rest] = entrypoint();
  const child = spawn(file!, [...rest, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const ended = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...out }));
  });
  return { child, out, ended };
}

/** The pids of `pid`'s children (from /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the images' entrypoint (tini, node, voe) outside a container", function () {
  this.timeout(10 * 60_000);
  const cp = useChartControlPlane();

  it('is tini forwarding to node on voe; with no arguments it runs the CMD (--help), exit 0', async () => {
    assert.deepStrictEqual(entrypoint().slice(0, 3), ['/usr/bin/tini', '--', 'node']);
    const run = await start(execForm(parseDockerfile(), 'voe', 'CMD')!).ended;
    assert.strictEqual(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: voe /m);
    assert.match(run.stdout, /^\s+certs\s/m);
  });

  it('--version prints the package version', async () => {
    const run = await start(['--version']).ended;
    const { version } = JSON.parse(await readFile(`${REPO}package.json`, 'utf8')) as {
      version: string;
    };
    assert.strictEqual(run.code, 0, run.stderr);
    assert.strictEqual(run.stdout.trim(), version);
  });

  it("serves with the host chart's Deployment arguments; SIGTERM to tini reaches voe, which stops cleanly (exit 0) and leaves no process", async () => {
    const helm = await useHelm();
    onCleanup(() => helm.cleanup());
    const objects = await helm.template(HOST_CHART);
    const deployment = oneOf(objects, 'Deployment', 'voe-webhook') as unknown as {
      spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
    };
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const args = deployment.spec.template.spec.containers[0]!.args.map((arg) =>
      arg
        .replace(/^--port=\d+$/, '--port=0')
        .replace(/^--shutdown-delay=.*$/, '--shutdown-delay=1')
        .replace(/^--tls-cert-file=.*$/, `--tls-cert-file=${files.certFile}`)
        .replace(/^--tls-key-file=.*$/, `--tls-key-file=${files.keyFile}`),
    );
    const { child, out, ended } = start([
      ...args,
      '--bind-address',
      '127.0.0.1',
      '--kubeconfig',
      cp.current.kubeconfigPath,
    ]);
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    await eventually(
      () => {
        if (child.exitCode !== null)
          assert.fail(`voe serve exited ${child.exitCode}: ${out.stderr}`);
        return /webhooks at https:\/\/127\.0\.0\.1:\d+/.test(out.stderr);
      },
      60_000,
      'voe serve listening',
    );
    const [node] = await childrenOf(child.pid!);
    assert.isDefined(node, 'tini runs node as its child');
    child.kill('SIGTERM');
    const run = await ended;
    assert.strictEqual(run.code, 0, run.stderr);
    assert.isNull(run.signal);
    assert.match(run.stdout, /"msg":"stopping after --shutdown-delay/);
    assert.isFalse(alive(node!), 'node has ended with tini');
  });
});
