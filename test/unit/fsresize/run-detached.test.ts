import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { runDetached } from '../../../src/fsresize/run-detached.js';

const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' };

test('runDetached returns all a tool wrote, short or longer than the first read, and leaves no file behind', async () => {
  const short = await runDetached('seq', ['1', '3'], { env, timeoutMs: 10_000 });
  assert.deepEqual(short, { exitCode: 0, stdout: '1\n2\n3\n', stderr: '' });
  // seq 1 100000 writes 588,895 bytes: more than one read of 64 KiB.
  const long = await runDetached('seq', ['1', '100000'], { env, timeoutMs: 10_000 });
  assert.equal(long.stdout.length, 588_895);
  assert.ok(long.stdout.startsWith('1\n2\n'));
  assert.ok(long.stdout.endsWith('99999\n100000\n'));
  const failing = await runDetached('ls', ['/nonexistent-voe-path'], { env, timeoutMs: 10_000 });
  assert.notEqual(failing.exitCode, 0);
  assert.match(failing.stderr, /nonexistent-voe-path/);
  assert.deepEqual((await readdir(tmpdir())).filter((name) => name.startsWith(`voe-tool-${process.pid}-`)), []);
});
