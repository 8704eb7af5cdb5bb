import { it } from 'mocha';
import { assert } from 'chai';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(
  new URL('../../support/fixtures/watch-stop-requests-then.js', import.meta.url),
);

/** Runs the fixture in a real process; `poke` gets the child once it printed "ready". */
function run(
  mode: 'wait' | 'throw' | 'reject',
  poke: (signal: (s: NodeJS.Signals) => void) => void = () => undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fixture, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let poked = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!poked && stdout.includes('ready\n')) {
        poked = true;
        poke((s) => child.kill(s));
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

it('SIGINT, SIGTERM and SIGHUP each become one stop request (the signal aborted), and the process cleans up and exits by itself', async () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const result = await run('wait', (kill) => kill(signal));
    assert.isNull(result.signal, `${signal} did not kill the process: ${result.stderr}`);
    assert.strictEqual(result.code, 0);
    assert.strictEqual(
      result.stdout,
      `ready\n${JSON.stringify({ kind: 'signal', signal })}\naborted true\ncleaned up\n`,
    );
  }
});

it('a second signal while cleaning up is reported, and does not cut the cleanup short', async () => {
  const result = await run('wait', (kill) => {
    kill('SIGINT');
    setTimeout(() => kill('SIGINT'), 100);
    setTimeout(() => kill('SIGHUP'), 150);
  });
  assert.strictEqual(result.code, 0, result.stderr);
  assert.strictEqual(
    result.stdout,
    `ready\n${JSON.stringify({ kind: 'signal', signal: 'SIGINT' })}\naborted true\nrepeat SIGINT\nrepeat SIGHUP\ncleaned up\n`,
  );
});

it('an uncaught exception or an unhandled rejection becomes a stop request instead of killing the process before its cleanup', async () => {
  const thrown = await run('throw');
  assert.strictEqual(thrown.code, 2);
  assert.strictEqual(
    thrown.stdout,
    `ready\n${JSON.stringify({ kind: 'error', origin: 'uncaughtException', message: 'fixture bug' })}\naborted true\ncleaned up\n`,
  );
  const rejected = await run('reject');
  assert.strictEqual(rejected.code, 2);
  assert.strictEqual(
    rejected.stdout,
    `ready\n${JSON.stringify({ kind: 'error', origin: 'unhandledRejection', message: 'fixture rejection' })}\naborted true\ncleaned up\n`,
  );
});

it('a closed output becomes one stop request with exit code 141 (128 + SIGPIPE), and dispose() stops listening for it', async () => {
  const { stopExitCode, watchStopRequests } = await import('../../../src/cli/stop-requests.js');
  const { EventEmitter } = await import('node:events');
  let closed: (() => void) | undefined;
  let unregistered = false;
  const stops = watchStopRequests(
    new EventEmitter() as unknown as Parameters<typeof watchStopRequests>[0],
    () => undefined,
    (listener) => {
      closed = listener;
      return () => {
        unregistered = true;
      };
    },
  );
  assert.ok(closed, 'registered for a closed output');
  closed();
  assert.deepStrictEqual(await stops.requested, { kind: 'output-closed' });
  assert.isTrue(stops.signal.aborted);
  assert.strictEqual(stopExitCode({ kind: 'output-closed' }), 141);
  stops.dispose();
  assert.isTrue(unregistered);
});
