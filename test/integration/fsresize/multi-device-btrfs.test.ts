/**
 * A btrfs spanning two devices is listed in mountinfo under one of them only: the core finds
 * its mounts by membership (/sys/fs/btrfs/<fsid>/devices) and grows the given device's share
 * with `btrfs filesystem resize <devid>:max <mountpoint>`.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import {
  MiB,
  readChecksums,
  sh,
  writeChecksummedFiles,
} from '../../support/fsresize/loop-device.js';
import { growCalls } from '../../support/fsresize/recording-runner.js';
import { setup } from '../../support/fsresize/fixtures.js';

/** The size btrfs gives device `devid` of the filesystem mounted at `mountPoint`. */
async function devidBytes(mountPoint: string, devid: number): Promise<number> {
  const out = await sh('btrfs', ['filesystem', 'show', '--raw', mountPoint]);
  return Number(new RegExp(`devid\\s+${devid}\\s+size\\s+(\\d+)`).exec(out)?.[1]);
}

it('btrfs on two devices, mounted through the first: the second one is found mounted and grows with <devid>:max', async () => {
  const { scratch, resizer, calls } = await setup();
  const first = await scratch.attach(256 * MiB);
  const second = await scratch.attach(256 * MiB);
  await sh('mkfs.btrfs', ['-q', '-f', '-d', 'single', '-m', 'single', first.device, second.device]);
  const mnt = await scratch.directory('mnt');
  await first.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await second.growBacking(512 * MiB);

  const inspection = await resizer.inspect(second.device);
  assert.strictEqual(
    inspection.mountPoint,
    mnt,
    'mounted, although mountinfo names the first device',
  );
  assert.deepStrictEqual(inspection.btrfs, { devid: 2, devices: 2 });
  assert.isTrue(resizer.needsResize(inspection));

  const dry = await resizer.grow(second.device, { mountPath: mnt, dryRun: true });
  assert.deepStrictEqual(dry.command, ['btrfs', 'filesystem', 'resize', '2:max', mnt]);

  const result = await resizer.grow(second.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.deepStrictEqual(result.command, ['btrfs', 'filesystem', 'resize', '2:max', mnt]);
  assert.strictEqual(result.beforeBytes, 256 * MiB);
  assert.strictEqual(result.afterBytes, 512 * MiB);
  assert.strictEqual(await devidBytes(mnt, 2), 512 * MiB);
  assert.strictEqual(await devidBytes(mnt, 1), 256 * MiB, 'the other device is untouched');
  assert.strictEqual(growCalls(calls), 1);

  // --mount names the mount point too; the first device already fills its device.
  const again = await resizer.grow(second.device, { mountPath: mnt });
  assert.match(again.reason, /already fills the device/);
  assert.match((await resizer.grow(first.device)).reason, /already fills the device/);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});

it('btrfs on two devices, not mounted: the second one is FSRESIZE_NOT_MOUNTED', async () => {
  const { scratch, resizer } = await setup();
  const first = await scratch.attach(256 * MiB);
  const second = await scratch.attach(256 * MiB);
  await sh('mkfs.btrfs', ['-q', '-f', '-d', 'single', '-m', 'single', first.device, second.device]);
  await second.growBacking(384 * MiB);
  await expectRejection(
    resizer.grow(second.device),
    /FSRESIZE_NOT_MOUNTED|btrfs only grows while mounted/,
  );
});

it('btrfs left on one device whose devid is 2 (the first device removed): grown with 2:max, as `max` alone means devid 1', async () => {
  const { scratch, resizer } = await setup();
  const first = await scratch.attach(256 * MiB);
  const second = await scratch.attach(256 * MiB);
  await sh('mkfs.btrfs', ['-q', '-f', first.device]);
  const mnt = await scratch.directory('mnt');
  await first.mount(mnt);
  const sums = await writeChecksummedFiles(mnt, 2);
  await sh('btrfs', ['device', 'add', '-f', second.device, mnt]);
  await sh('btrfs', ['device', 'remove', first.device, mnt]);
  await second.growBacking(512 * MiB);
  const inspection = await resizer.inspect(second.device);
  assert.strictEqual(inspection.mountPoint, mnt);
  assert.deepStrictEqual(inspection.btrfs, { devid: 2, devices: 1 });
  const result = await resizer.grow(second.device);
  assert.strictEqual(result.action, 'grown', result.reason);
  assert.deepStrictEqual(result.command, ['btrfs', 'filesystem', 'resize', '2:max', mnt]);
  assert.strictEqual(await devidBytes(mnt, 2), 512 * MiB);
  assert.deepStrictEqual(await readChecksums(mnt, sums.keys()), sums);
});
