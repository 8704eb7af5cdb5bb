import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:https';
import { eventually } from '../../support/eventually.js';
import {
  httpsRequest,
  pvcReview,
  writeServingFiles,
  type ServingFiles,
} from '../../support/webhook/webhook-client.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();

const MAIN = 'dist/src/cli/main.js';

interface Serve {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `voe serve` in cluster mode (certificate files) with `args`; resolves once it listens. */
async function startServe(files: ServingFiles, args: string[]): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'serve',
      '--kubeconfig',
      cp.kubeconfigPath,
      '--tls-cert-file',
      files.certFile,
      '--tls-key-file',
      files.keyFile,
      '--port',
      '0',
      '--bind-address',
      '127.0.0.1',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const match = /webhooks at https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, port, stdout: () => stdout, stderr: () => stderr, exited };
}

interface Answer {
  status: number;
  connection: string | undefined;
  reused: boolean;
}

/** One review over `agent` (keep-alive); says whether the connection was reused and what the answer's Connection header was. */
function review(port: number, ca: string, agent: Agent, uid: string): Promise<Answer> {
  const body = JSON.stringify(pvcReview(uid));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/validate/pvc-resize',
        method: 'POST',
        ca,
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            reused: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const free = (agent: Agent): number =>
  Object.values(agent.freeSockets).reduce((n, list) => n + (list?.length ?? 0), 0);

describe('voe serve --shutdown-delay', () => {
  it('keep-alive clients sending through the delay get every answer, each with Connection: close, and no connection is left to be cut at the close', async () => {
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const ca = files.ca.certificatePem;
    const serve = await startServe(files, ['--shutdown-delay', '300']);
    await eventually(
      async () =>
        (
          await httpsRequest(serve.port, ca, {
            path: '/readyz',
            method: 'GET',
            agent: new Agent({ keepAlive: false }),
          })
        ).status === 200,
      60_000,
      '/readyz 200',
    );

    // Eight clients as the API server keeps them: one keep-alive connection each, reused while serving.
    const agents = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    onCleanup(() => {
      for (const agent of agents) agent.destroy();
    });
    let n = 0;
    for (const agent of agents) {
      for (let i = 0; i < 3; i++) {
        const answer = await review(serve.port, ca, agent, `before-${n++}`);
        assert.strictEqual(answer.status, 200);
        assert.strictEqual(answer.connection, 'keep-alive', 'kept alive while serving');
      }
    }
    assert.strictEqual(
      agents.reduce((sum, agent) => sum + free(agent), 0),
      agents.length,
      'each client holds an idle connection',
    );

    serve.child.kill('SIGTERM');
    await eventually(
      () => /stopping after --shutdown-delay; still answering meanwhile/.test(serve.stdout()),
      30_000,
      'the delay to start',
    );
    // Through the delay: every client keeps sending (concurrently), first over the connection it held.
    const during = await Promise.all(
      agents.map(async (agent, a) => {
        const answers: Answer[] = [];
        for (let i = 0; i < 5; i++)
          answers.push(await review(serve.port, ca, agent, `during-${a}-${i}`));
        return answers;
      }),
    );
    for (const answers of during) {
      assert.deepStrictEqual(
        answers.map((a) => [a.status, a.connection]),
        answers.map(() => [200, 'close']),
        'answered, and told to close the connection',
      );
      assert.isTrue(answers[0]!.reused, 'the first one went over the kept connection');
      assert.deepStrictEqual(
        answers.slice(1).map((a) => a.reused),
        [false, false, false, false],
        'then each over a new one: no reuse while draining',
      );
    }
    // The server closed each connection after its answer: no client holds one that the close would cut
    // while a request is on its way.
    await eventually(
      () => agents.every((agent) => free(agent) === 0 && Object.keys(agent.sockets).length === 0),
      10_000,
      'every client connection closed by the server',
    );

    assert.isNull(serve.child.exitCode, 'still in the delay');
    serve.child.kill('SIGTERM');
    assert.strictEqual(await serve.exited, 0, serve.stderr());
  }).timeout(240_000);
});
