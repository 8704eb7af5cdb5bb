import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { readProcessStat } from '../../../src/lock/index.js';
import { processStartTime } from '../../../src/lock/process-start-time.js';

it('processStartTime reads field 22 of /proc/<pid>/stat; a later process starts later; a gone one has none', async () => {
  const mine = processStartTime(process.pid);
  assert.ok(mine !== null && mine > 0);
  // A command name with spaces and parentheses does not shift the fields. The child says when it has renamed itself.
  const child = spawn(
    process.execPath,
    [
      '-e',
      'process.title = "a) b (c"; process.stdout.write("renamed\\n"); setInterval(() => {}, 1000)',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = once(child, 'exit');
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  await Promise.race([
    new Promise<void>((resolve) => {
      child.stdout.on('data', () => {
        if (out.includes('renamed\n')) resolve();
      });
    }),
    exited.then(([code, signal]) =>
      assert.fail(`the child exited (${code ?? signal}) before renaming itself`),
    ),
  ]);
  assert.match(
    readFileSync(`/proc/${child.pid}/stat`, 'utf8'),
    /^\d+ \(a\) b \(c\) /,
    'the command name holds spaces and parentheses',
  );
  const theirs = processStartTime(child.pid!);
  assert.ok(theirs !== null && theirs >= mine, `${theirs} >= ${mine}`);
  child.kill();
  await exited;
  assert.isNull(processStartTime(child.pid!));
});

it('readProcessStat names the parent process', () => {
  assert.strictEqual(readProcessStat(process.pid)?.parentPid, process.ppid);
});
