/**
 * Mount points of the device that are not directories, or that voe cannot open. kubelet's subPath
 * bind mounts can be single files, e.g. a unix socket of the volume bind-mounted into a pod:
 * opening one for reading fails (ENXIO), and opening a bind-mounted device node would open the
 * device. The core only names mount points (O_PATH), and one it cannot open makes that mount
 * unusable, not the device: it is an error only when it is the mount asked for, or the only one.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMountinfoTable } from '../../../src/fsresize/index.js';
import { MiB, readChecksums } from '../../support/fsresize/loop-device.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import { mountedXfs, xfsBytes } from '../../support/fsresize/fixtures.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

it('a unix socket of the filesystem bind-mounted elsewhere does not stop the grow: it is named (O_PATH), never opened', async () => {
  const { scratch, resizer, calls, loop, mnt, sums } = await mountedXfs({
    growTo: 512 * MiB,
    files: 1,
  });
  const socketPath = join(mnt, 'app.sock');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  );
  const pod = await scratch.directory('pod');
  const target = join(pod, 'app.sock');
  await writeFile(target, '');
  await scratch.bind(socketPath, target);

  const table = createMountinfoTable();
  const entry = (await table.list()).find((m) => m.mountPoint === target);
  assert.ok(entry, 'the socket bind mount is in mountinfo');
  assert.strictEqual(
    entry.majorMinor,
    (await table.list()).find((m) => m.mountPoint === mnt)?.majorMinor,
    'it is a mount of the same filesystem',
  );
  assert.strictEqual(
    await table.visibleMountId(target),
    entry.mountId,
    'fdinfo gives the mnt_id of an O_PATH descriptor',
  );

  const result = await resizer.grow(loop.device, { mountPath: mnt });
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.strictEqual(result.mountPoint, mnt);
  assert.strictEqual(await xfsBytes(mnt), 512 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);

  await loop.growBacking(640 * MiB);
  const chosen = await resizer.grow(loop.device);
  assert.strictEqual(chosen.action, 'grown', chosen.reason);
  assert.strictEqual(chosen.mountPoint, mnt, 'the filesystem root, not the socket');
  assert.strictEqual(await xfsBytes(mnt), 640 * MiB);
  assert.strictEqual(growCalls(calls), 2);
});

/** Runs `command args` as root of a new user namespace (uid 0 mapped to root; every other uid unmapped). */
function asNamespaceRoot(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      'unshare',
      ['--user', '--map-root-user', '--', command, ...args],
      { encoding: 'utf8' },
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

it('a mount point voe cannot open is unusable, not fatal: another one is used; asked for or alone, FSRESIZE_MOUNT_INACCESSIBLE (not "run voe as root")', async function () {
  if ((await asNamespaceRoot('true', [])).code !== 0) {
    // User namespaces are not available here (unshare --user --map-root-user failed).
    this.skip();
  }
  const { scratch, lockDirectory, loop, mnt } = await mountedXfs({
    growTo: 512 * MiB,
    files: 0,
  });
  // voe runs as root of a user namespace: a directory owned by a uid that namespace does not map
  // cannot be searched, even by its root (EACCES), like a FUSE mount that refuses other users.
  const locked = await scratch.directory('locked');
  const inside = join(locked, 'mnt');
  await mkdir(inside);
  await scratch.bind(mnt, inside);
  await chown(locked, 54321, 54321);
  await chmod(locked, 0o700);
  const grow = (more: string[]) =>
    asNamespaceRoot(process.execPath, [
      MAIN,
      'fsresize',
      'grow',
      '--device',
      loop.device,
      '--lock-dir',
      lockDirectory,
      '--dry-run',
      '--json',
      ...more,
    ]);

  for (const more of [[], ['--mount', mnt]]) {
    const run = await grow(more);
    assert.strictEqual(run.code, 0, `${more.join(' ')}: ${run.stdout}${run.stderr}`);
    const result = JSON.parse(run.stdout);
    assert.strictEqual(result.mountPoint, mnt);
    assert.deepStrictEqual(result.command, ['xfs_growfs', '-d', mnt]);
  }

  const asked = await grow(['--mount', inside]);
  assert.strictEqual(asked.code, 2, asked.stdout + asked.stderr);
  const { error } = JSON.parse(asked.stdout);
  assert.strictEqual(error.code, 'FSRESIZE_MOUNT_INACCESSIBLE');
  assert.match(
    error.message,
    new RegExp(`^cannot open ${inside} to see which filesystem it shows \\(EACCES, as root;`),
  );
  assert.match(error.message, /nothing was changed/);
  assert.notMatch(error.message, /run voe as root/);

  await loop.unmount(mnt);
  const alone = await grow([]);
  assert.strictEqual(alone.code, 2, alone.stdout + alone.stderr);
  assert.strictEqual(
    JSON.parse(alone.stdout).error.code,
    'FSRESIZE_MOUNT_INACCESSIBLE',
    'its only mount might be the one that shows it: no guess',
  );
  await chmod(locked, 0o755);
  assert.strictEqual(await xfsBytes(inside), 320 * MiB, 'nothing was grown');
});
