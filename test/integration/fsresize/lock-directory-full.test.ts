/**
 * The device lock directory on a filesystem that is full, or nearly: real `voe` processes, the
 * lock directory on a small tmpfs filled by the test.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { systemPageSize } from '../../../src/fsresize/index.js';
import { MiB, sh } from '../../support/loop-device.js';
import { dumpe2fsBytes, setup } from './fixtures.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const PAGE = systemPageSize();
const TMPFS_PAGES = 8;

function voe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], { encoding: 'utf8', env: envIgnoringUnreadableHere() }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
    child.stdin?.end();
  });
}

/**
 * A lock directory on a tmpfs of TMPFS_PAGES pages with `free` of them left free (a file fills
 * the rest; a directory takes no page), and the function that frees one more.
 */
async function nearlyFullLockDirectory(scratch: Awaited<ReturnType<typeof setup>>['scratch'], free: number): Promise<{ directory: string; freeOnePage: () => Promise<void> }> {
  const root = await scratch.tmpfs('locks-fs', TMPFS_PAGES * PAGE);
  const directory = join(root, 'fsresize');
  await mkdir(directory, { mode: 0o700 });
  const fill = join(root, 'fill');
  let pages = TMPFS_PAGES - free;
  await writeFile(fill, Buffer.alloc(pages * PAGE, 1));
  return { directory, freeOnePage: async () => { pages -= 1; await truncate(fill, pages * PAGE); } };
}

test('a lock directory whose filesystem is full: FSRESIZE_LOCK_FAILED saying so, nothing changed, and nothing left in the directory (no empty staged lock file per retry)', async (t) => {
  const { scratch } = await setup(t);
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  const { directory } = await nearlyFullLockDirectory(scratch, 0);
  for (let attempt = 1; attempt <= 2; attempt++) {
    const run = await voe(['fsresize', 'grow', '--device', loop.device, '--json', '--lock-dir', directory]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.deepEqual(await readdir(directory), [], `attempt ${attempt} left nothing behind`);
    const { error } = JSON.parse(run.stdout);
    assert.equal(error.code, 'FSRESIZE_LOCK_FAILED');
    assert.equal(error.message, `cannot create the device lock file in ${directory} (ENOSPC); the filesystem holding it is full: free some space there (or choose another lock directory)`);
  }
  assert.equal(await dumpe2fsBytes(loop.device), 64 * MiB);
});
