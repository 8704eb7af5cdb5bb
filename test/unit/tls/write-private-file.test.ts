import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { chown, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from '../../../src/tls/index.js';

it('writePrivateFile leaves the secret mode 0600 and ours, never in the file a reused directory kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-private-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const fresh = join(dir, 'tls.key');
  await writePrivateFile(fresh, 'KEY-1');
  assert.strictEqual((await stat(fresh)).mode & 0o777, 0o600);

  // A kubeconfig left behind: world-readable, another user's, and held open by someone.
  const reused = join(dir, 'kubeconfig');
  await writeFile(reused, 'an older kubeconfig\n', { mode: 0o644 });
  if (process.getuid?.() === 0) await chown(reused, 65534, 65534);
  const holder = await open(reused, 'r');
  onCleanup(() => holder.close());
  await writePrivateFile(reused, 'KEY-2');
  const info = await stat(reused);
  assert.strictEqual(info.mode & 0o777, 0o600);
  assert.strictEqual(info.uid, process.getuid?.());
  assert.strictEqual(await readFile(reused, 'utf8'), 'KEY-2');
  assert.strictEqual(
    await holder.readFile('utf8'),
    'an older kubeconfig\n',
    'the descriptor held open still reads the old file, not the key',
  );
  assert.deepStrictEqual(
    (await readdir(dir)).sort(),
    ['kubeconfig', 'tls.key'],
    'no staged file left',
  );
});
