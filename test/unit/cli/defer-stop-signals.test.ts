import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { eventually } from '../../support/eventually.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../../../src/cli/defer-stop-signals.js', import.meta.url));

it('deferStopSignals: SIGTERM, SIGINT and SIGHUP do not end the process; the first aborts the signal and sets the exit code; dispose restores them', async () => {
  const script = `
    const { deferStopSignals } = await import(${JSON.stringify(MODULE)});
    const stop = deferStopSignals((name, first) => process.stdout.write(name + ' ' + first + '\\n'));
    stop.signal.addEventListener('abort', () => process.stdout.write('aborted ' + stop.signal.reason + '\\n'));
    process.stdout.write('ready\\n');
    process.stdin.once('data', () => {
      process.stdout.write('received ' + stop.received() + ' exit ' + stop.exitCode() + '\\n');
      stop.dispose();
      process.stdout.write('disposed\\n');
      setInterval(() => {}, 1000);
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const until = (text: string): Promise<void> =>
    eventually(() => out.includes(text), 10_000, JSON.stringify(text), {
      intervalMs: 10,
      giveUp: () =>
        child.exitCode === null && child.signalCode === null ? undefined : 'the process ended',
    }).catch((error: Error) => assert.fail(`${error.message}; printed ${JSON.stringify(out)}`));
  await until('ready\n');
  child.kill('SIGTERM');
  await until('SIGTERM true\n');
  child.kill('SIGINT');
  await until('SIGINT false\n');
  child.kill('SIGHUP');
  await until('SIGHUP false\n');
  child.stdin.write('go\n');
  await until('disposed\n');
  assert.strictEqual(
    out,
    'ready\naborted SIGTERM\nSIGTERM true\nSIGINT false\nSIGHUP false\nreceived SIGTERM exit 143\ndisposed\n',
  );
  const exited = once(child, 'exit');
  child.kill('SIGHUP');
  assert.deepStrictEqual(
    await exited,
    [null, 'SIGHUP'],
    'after dispose a signal ends the process again',
  );
});
