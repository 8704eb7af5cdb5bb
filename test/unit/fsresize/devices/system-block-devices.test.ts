import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../../support/expect-error.js';
import { onCleanup } from '../../../support/cleanup.js';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createExecFileRunner,
  createSystemBlockDevices,
  isFsResizeError,
} from '../../../../src/fsresize/index.js';

const run = promisify(execFile);

it('a device that cannot be opened is a typed error naming it, never a raw errno', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-blockdev-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  // A block device node whose driver does not exist (major 240 is reserved for local use): open gives ENXIO.
  const node = join(dir, 'gone');
  await run('mknod', [node, 'b', '240', '0']);
  const devices = createSystemBlockDevices({ runner: createExecFileRunner() });
  const id = await devices.identify(node);
  // ENXIO here; EACCES where the temporary directory is mounted nodev.
  const errno = await open(node, 'r').then(
    async (h) => {
      await h.close();
      return 'none';
    },
    (e: NodeJS.ErrnoException) => e.code,
  );
  const expected =
    errno === 'EACCES'
      ? {
          code: 'FSRESIZE_PERMISSION_DENIED',
          message: /^cannot open \S+gone \(EACCES\); run voe as root on the node$/,
        }
      : {
          code: 'FSRESIZE_DEVICE_NOT_FOUND',
          message:
            /^cannot open \S+gone \(ENXIO\): the device went away; is the volume still attached\?$/,
        };
  for (const attempt of [() => devices.hold(id), () => devices.read(id, 0, 512)]) {
    await expectRejection(attempt(), (error: unknown) => {
      assert.ok(isFsResizeError(error), String(error));
      assert.strictEqual(error.code, expected.code);
      assert.match(error.message, expected.message);
      return true;
    });
  }
  await expectRejection(devices.hold({ ...id, realPath: join(dir, 'missing') }), {
    code: 'FSRESIZE_DEVICE_NOT_FOUND',
  });
});

it("btrfsDevices lists the major:minor of a mounted btrfs filesystem's devices from sysfs; null when it is not mounted", async () => {
  const sysfs = await mkdtemp(join(tmpdir(), 'voe-sysfs-'));
  onCleanup(() => rm(sysfs, { recursive: true, force: true }));
  const fsid = '4742ea63-c61d-4c16-a601-a968e178a6a0';
  for (const [name, dev] of [
    ['loop0', '7:0'],
    ['loop1', '7:1'],
  ]) {
    await mkdir(join(sysfs, 'fs', 'btrfs', fsid, 'devices', name!), { recursive: true });
    await writeFile(join(sysfs, 'fs', 'btrfs', fsid, 'devices', name!, 'dev'), `${dev}\n`);
  }
  const devices = createSystemBlockDevices({ runner: createExecFileRunner(), sysfsRoot: sysfs });
  assert.deepStrictEqual((await devices.btrfsDevices(fsid))?.sort(), ['7:0', '7:1']);
  assert.deepStrictEqual(
    (await devices.btrfsDevices(fsid.toUpperCase()))?.sort(),
    ['7:0', '7:1'],
    'blkid may print it in either case',
  );
  assert.isNull(await devices.btrfsDevices('00000000-0000-0000-0000-000000000000'));
  assert.isNull(await devices.btrfsDevices('../../etc'), 'never a path');
});
