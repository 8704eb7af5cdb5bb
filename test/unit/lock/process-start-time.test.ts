import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { processStartTime } from '../../../src/lock/index.js';

test('processStartTime reads field 22 of /proc/<pid>/stat; a later process starts later; a gone one has none', async () => {
  const mine = processStartTime(process.pid);
  assert.ok(mine !== null && mine > 0);
  // A command name with spaces and parentheses does not shift the fields.
  const child = spawn(process.execPath, ['-e', 'process.title = "a) b (c"; setTimeout(() => {}, 5000)']);
  await new Promise((r) => setTimeout(r, 200));
  const theirs = processStartTime(child.pid!);
  assert.ok(theirs !== null && theirs >= mine, `${theirs} >= ${mine}`);
  const exited = once(child, 'exit');
  child.kill();
  await exited;
  assert.equal(processStartTime(child.pid!), null);
});
