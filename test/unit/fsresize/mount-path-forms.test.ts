import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { mountPathForms } from '../../../src/fsresize/index.js';

test('mountPathForms: resolved (no trailing slash, no .., no //) and, when it exists, with symlinks resolved', async (t) => {
  assert.deepEqual(await mountPathForms('/voe/none/mnt/'), ['/voe/none/mnt']);
  assert.deepEqual(await mountPathForms('/voe/none//x/../mnt'), ['/voe/none/mnt']);
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'voe-forms-')));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'real'));
  await symlink(join(dir, 'real'), join(dir, 'link'));
  assert.deepEqual(await mountPathForms(`${dir}/link/`), [join(dir, 'link'), join(dir, 'real')]);
});
