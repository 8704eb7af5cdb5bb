import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../../../src/tls/index.js';

test('writePrivateFile leaves the secret mode 0600, also over a file that existed with a wider mode', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-private-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fresh = join(dir, 'tls.key');
  await writePrivateFile(fresh, 'KEY-1');
  assert.equal((await stat(fresh)).mode & 0o777, 0o600);
  const reused = join(dir, 'kubeconfig');
  await writeFile(reused, 'an older, longer kubeconfig\n', { mode: 0o644 });
  await writePrivateFile(reused, 'KEY-2');
  assert.equal((await stat(reused)).mode & 0o777, 0o600);
  assert.equal(await readFile(reused, 'utf8'), 'KEY-2');
});
