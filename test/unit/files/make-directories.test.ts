import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeDirectories } from '../../../src/files/index.js';

test('makeDirectories creates the missing parents with the mode, leaves existing ones, and is idempotent', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'voe-dirs-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const deep = join(root, 'a', 'b', 'c');
  await makeDirectories(deep, 0o700);
  for (const path of [join(root, 'a'), join(root, 'a', 'b'), deep])
    assert.equal((await stat(path)).mode & 0o777, 0o700, path);
  await makeDirectories(deep, 0o700);
  await makeDirectories(join(root, 'a', 'b', 'c', '..', 'd'));
  assert.ok((await stat(join(root, 'a', 'b', 'd'))).isDirectory());
});

test('makeDirectories fails with the errno code where it cannot create: a file in the way (ENOTDIR), under /proc (ENOENT, where a recursive mkdir loops for ever)', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'voe-dirs-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, 'file'), '');
  await assert.rejects(makeDirectories(join(root, 'file', 'x')), { code: 'ENOTDIR' });
  await assert.rejects(makeDirectories('/proc/voe-nope/x'), { code: 'ENOENT' });
});
