import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectories } from '../../../src/files/index.js';

it('makeDirectories creates the missing parents with the mode, leaves existing ones, and is idempotent', async () => {
  const root = await mkdtemp(join(tmpdir(), 'voe-dirs-'));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  const deep = join(root, 'a', 'b', 'c');
  await makeDirectories(deep, 0o700);
  for (const path of [join(root, 'a'), join(root, 'a', 'b'), deep])
    assert.strictEqual((await stat(path)).mode & 0o777, 0o700, path);
  await makeDirectories(deep, 0o700);
  await makeDirectories(join(root, 'a', 'b', 'c', '..', 'd'));
  assert.ok((await stat(join(root, 'a', 'b', 'd'))).isDirectory());
});

it('makeDirectories fails with the errno code where it cannot create: a file in the way (ENOTDIR), under /proc (ENOENT, where a recursive mkdir loops for ever)', async () => {
  const root = await mkdtemp(join(tmpdir(), 'voe-dirs-'));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, 'file'), '');
  await expectRejection(makeDirectories(join(root, 'file', 'x')), { code: 'ENOTDIR' });
  await expectRejection(makeDirectories('/proc/voe-nope/x'), { code: 'ENOENT' });
});
