import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../../support/cleanup.js';
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountPathForms } from '../../../../src/fsresize/mounts/mount-path-forms.js';

it('mountPathForms: resolved (no trailing slash, no .., no //) and, when it exists, with symlinks resolved', async () => {
  assert.deepStrictEqual(await mountPathForms('/voe/none/mnt/'), ['/voe/none/mnt']);
  assert.deepStrictEqual(await mountPathForms('/voe/none//x/../mnt'), ['/voe/none/mnt']);
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'voe-forms-')));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'real'));
  await symlink(join(dir, 'real'), join(dir, 'link'));
  assert.deepStrictEqual(await mountPathForms(`${dir}/link/`), [
    join(dir, 'link'),
    join(dir, 'real'),
  ]);
});
