/**
 * The device lock directory on a filesystem that is full, or nearly: real `voe` processes, the
 * lock directory on a small tmpfs filled by the test.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, readdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemPageSize } from '../../../src/fsresize/devices/system-page-size.js';
import { MiB, readChecksums, sh } from '../../support/fsresize/loop-device.js';
import { dumpe2fsBytes, mountedXfs, setup, xfsBytes } from '../../support/fsresize/fixtures.js';
import { envIgnoringUnreadableHere } from '../../support/unreadable-here.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const PAGE = systemPageSize();
const TMPFS_PAGES = 8;

function voe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { encoding: 'utf8', env: envIgnoringUnreadableHere() },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr,
        });
      },
    );
    child.stdin?.end();
  });
}

/**
 * A lock directory on a tmpfs of TMPFS_PAGES pages with `free` of them left free (a file fills
 * the rest; a directory takes no page), and the function that frees one more.
 */
async function nearlyFullLockDirectory(
  scratch: Awaited<ReturnType<typeof setup>>['scratch'],
  free: number,
): Promise<{ directory: string; freeOnePage: () => Promise<void> }> {
  const root = await scratch.tmpfs('locks-fs', TMPFS_PAGES * PAGE);
  const directory = join(root, 'fsresize');
  await mkdir(directory, { mode: 0o700 });
  const fill = join(root, 'fill');
  let pages = TMPFS_PAGES - free;
  await writeFile(fill, Buffer.alloc(pages * PAGE, 1));
  return {
    directory,
    freeOnePage: async () => {
      pages -= 1;
      await truncate(fill, pages * PAGE);
    },
  };
}

it('a lock directory whose filesystem is full: FSRESIZE_LOCK_FAILED saying so, nothing changed, and nothing left in the directory (no empty staged lock file per retry)', async () => {
  const { scratch } = await setup();
  const loop = await scratch.attach(64 * MiB);
  await sh('mkfs.ext4', ['-q', loop.device]);
  await loop.growBacking(128 * MiB);
  const { directory } = await nearlyFullLockDirectory(scratch, 0);
  for (let attempt = 1; attempt <= 2; attempt++) {
    const run = await voe([
      'fsresize',
      'grow',
      '--device',
      loop.device,
      '--json',
      '--lock-dir',
      directory,
    ]);
    assert.strictEqual(run.code, 2, run.stdout + run.stderr);
    assert.deepStrictEqual(await readdir(directory), [], `attempt ${attempt} left nothing behind`);
    const { error } = JSON.parse(run.stdout);
    assert.strictEqual(error.code, 'FSRESIZE_LOCK_FAILED');
    assert.strictEqual(
      error.message,
      `cannot create the device lock file in ${directory} (ENOSPC); the filesystem holding it is full: free some space there (or choose another lock directory)`,
    );
  }
  assert.strictEqual(await dumpe2fsBytes(loop.device), 64 * MiB);
});

it('room for the lock file but not for naming the grow tool in it: the tool is not started (a voe killed while it ran would leave the device unlocked under it); once there is room, it grows', async () => {
  const { scratch, loop, mnt, sums, beforeBytes } = await mountedXfs({
    growTo: 512 * MiB,
    files: 2,
  });
  const { directory, freeOnePage } = await nearlyFullLockDirectory(scratch, 1);
  const refused = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--json',
    '--lock-dir',
    directory,
  ]);
  assert.strictEqual(refused.code, 2, refused.stdout + refused.stderr);
  const { error } = JSON.parse(refused.stdout);
  assert.strictEqual(error.code, 'FSRESIZE_LOCK_FAILED');
  assert.strictEqual(
    error.message,
    `xfs_growfs -d ${mnt} was not started, as the device lock could not be made to name it while it runs: ` +
      `cannot create the device lock file in ${directory} (ENOSPC); the filesystem holding it is full: free some space there (or choose another lock directory); nothing was changed`,
  );
  assert.strictEqual(await xfsBytes(mnt), beforeBytes, 'not grown');
  assert.deepStrictEqual(
    await readdir(directory),
    [],
    'the lock was released, nothing staged was left',
  );

  await freeOnePage();
  const grown = await voe([
    'fsresize',
    'grow',
    '--device',
    loop.device,
    '--json',
    '--lock-dir',
    directory,
  ]);
  assert.strictEqual(grown.code, 0, grown.stdout + grown.stderr);
  assert.strictEqual(JSON.parse(grown.stdout).action, 'grown');
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
  assert.deepStrictEqual(await readdir(directory), []);
});
