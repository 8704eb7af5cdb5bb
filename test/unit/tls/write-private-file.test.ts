import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chown, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../../../src/tls/index.js';

test('writePrivateFile leaves the secret mode 0600 and ours, never in the file a reused directory kept', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-private-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const fresh = join(dir, 'tls.key');
  await writePrivateFile(fresh, 'KEY-1');
  assert.equal((await stat(fresh)).mode & 0o777, 0o600);

  // A kubeconfig left behind: world-readable, another user's, and held open by someone.
  const reused = join(dir, 'kubeconfig');
  await writeFile(reused, 'an older kubeconfig\n', { mode: 0o644 });
  if (process.getuid?.() === 0) await chown(reused, 65534, 65534);
  const holder = await open(reused, 'r');
  t.after(() => holder.close());
  await writePrivateFile(reused, 'KEY-2');
  const info = await stat(reused);
  assert.equal(info.mode & 0o777, 0o600);
  assert.equal(info.uid, process.getuid?.());
  assert.equal(await readFile(reused, 'utf8'), 'KEY-2');
  assert.equal(
    await holder.readFile('utf8'),
    'an older kubeconfig\n',
    'the descriptor held open still reads the old file, not the key',
  );
  assert.deepEqual((await readdir(dir)).sort(), ['kubeconfig', 'tls.key'], 'no staged file left');
});
