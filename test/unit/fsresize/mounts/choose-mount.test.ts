import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../../support/expect-error.js';
import { isFsResizeError } from '../../../../src/fsresize/index.js';
import { chooseMount, type MountCandidate } from '../../../../src/fsresize/mounts/choose-mount.js';
import { FsResizeError } from '../../../../src/fsresize/model/fsresize-error.js';
import { parseMountinfo } from '../../../../src/fsresize/parse/parse-mountinfo.js';

function candidates(lines: string[], visible: number[], stacked: number[] = []): MountCandidate[] {
  return parseMountinfo(lines.join('\n')).map((entry) => ({
    entry,
    visible: visible.includes(entry.mountId),
    stacked: stacked.includes(entry.mountId),
  }));
}

const A_AT_M = '40 27 7:0 / /m rw - xfs /dev/loop0 rw';
const A_AT_N = '41 27 7:0 / /n rw - xfs /dev/loop0 rw';
const A_SUB_RW = '42 27 7:0 /sub /s rw - xfs /dev/loop0 rw';
const A_AT_RO = '43 27 7:0 / /r ro - xfs /dev/loop0 ro';

it('a hidden mount is never chosen; with only hidden mounts there is no mount point, and they are named', () => {
  const choice = chooseMount('/dev/loop0', candidates([A_AT_M], []));
  assert.isNull(choice.chosen);
  assert.deepStrictEqual(choice.visible, []);
  assert.deepStrictEqual(choice.hidden, ['/m']);
  const some = chooseMount('/dev/loop0', candidates([A_AT_M, A_AT_N], [41]));
  assert.strictEqual(some.chosen?.mountPoint, '/n', 'the visible one');
  assert.deepStrictEqual(some.hidden, ['/m']);
});

it('preference among visible mounts: read-write, alone at its mount point, the root', () => {
  assert.strictEqual(
    chooseMount('/dev/loop0', candidates([A_AT_RO, A_SUB_RW, A_AT_M], [43, 42, 40])).chosen
      ?.mountPoint,
    '/m',
  );
  assert.strictEqual(
    chooseMount('/dev/loop0', candidates([A_AT_RO, A_SUB_RW], [43, 42])).chosen?.mountPoint,
    '/s',
    'read-write before the root',
  );
  const stacked = chooseMount('/dev/loop0', candidates([A_AT_M, A_AT_N], [40, 41], [40]));
  assert.strictEqual(
    stacked.chosen?.mountPoint,
    '/n',
    'alone at its mount point before one mounted over another',
  );
  assert.isFalse(stacked.chosenStacked);
  const onlyStacked = chooseMount('/dev/loop0', candidates([A_AT_M], [40], [40]));
  assert.strictEqual(onlyStacked.chosen?.mountPoint, '/m');
  assert.isTrue(onlyStacked.chosenStacked);
});

it('a wanted mount path: the visible mount there, none when it is hidden there (named), FSRESIZE_MOUNT_MISMATCH when the device is not mounted there', () => {
  assert.strictEqual(
    chooseMount('/dev/loop0', candidates([A_AT_M, A_AT_N], [40, 41]), {
      given: '/n/',
      paths: ['/n'],
    }).chosen?.mountPoint,
    '/n',
  );
  const hidden = chooseMount('/dev/loop0', candidates([A_AT_M, A_AT_N], [41]), {
    given: '/m',
    paths: ['/m'],
  });
  assert.isNull(hidden.chosen, 'not switched to /n: the caller asked for /m');
  assert.deepStrictEqual(hidden.hidden, ['/m']);
  expectThrow(
    () =>
      chooseMount('/dev/loop0', candidates([A_AT_M, A_AT_N], [41]), { given: '/x', paths: ['/x'] }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_MOUNT_MISMATCH');
      assert.strictEqual(
        error.message,
        '/x is not a mount point of /dev/loop0 (it is mounted at /n, /m (hidden by another mount)); nothing was changed — give the right mount point, or none',
      );
      return true;
    },
  );
});

it('a mount point that could not be opened is never chosen and stops nothing while another one shows the device; asked for, or with nothing visible, its error is raised', () => {
  const dead = new FsResizeError(
    'FSRESIZE_MOUNT_INACCESSIBLE',
    'cannot open /m to see which filesystem it shows (ENOTCONN)',
  );
  const withDead = (visible: number[]): MountCandidate[] =>
    candidates([A_AT_M, A_AT_N], visible).map((c) =>
      c.entry.mountId === 40 ? { ...c, unusable: dead } : c,
    );
  const choice = chooseMount('/dev/loop0', withDead([41]));
  assert.strictEqual(choice.chosen?.mountPoint, '/n');
  assert.deepStrictEqual(choice.visible, ['/n']);
  assert.deepStrictEqual(choice.hidden, [], 'not called hidden: voe could not tell');
  assert.deepStrictEqual(choice.unusable, [
    {
      mountPoint: '/m',
      reason:
        'FSRESIZE_MOUNT_INACCESSIBLE: cannot open /m to see which filesystem it shows (ENOTCONN)',
    },
  ]);
  assert.strictEqual(
    chooseMount('/dev/loop0', withDead([41]), { given: '/n', paths: ['/n'] }).chosen?.mountPoint,
    '/n',
  );
  expectThrow(
    () => chooseMount('/dev/loop0', withDead([41]), { given: '/m', paths: ['/m'] }),
    (error: unknown) => error === dead,
    'the mount asked for',
  );
  expectThrow(
    () => chooseMount('/dev/loop0', withDead([])),
    (error: unknown) => error === dead,
    'no visible mount: it may be the one that shows the device',
  );
  expectThrow(
    () => chooseMount('/dev/loop0', withDead([41]), { given: '/x', paths: ['/x'] }),
    (error: unknown) => {
      assert.ok(isFsResizeError(error));
      assert.strictEqual(error.code, 'FSRESIZE_MOUNT_MISMATCH');
      assert.match(error.message, /it is mounted at \/n, \/m \(cannot be opened\)\)/);
      return true;
    },
  );
});

it('a mount point where another mount of the device is on top (a bind mount over itself) shows the device: not named hidden', () => {
  const over = '44 40 7:0 / /m rw - xfs /dev/loop0 rw';
  const choice = chooseMount('/dev/loop0', candidates([A_AT_M, over], [44]));
  assert.strictEqual(choice.chosen?.mountId, 44);
  assert.deepStrictEqual(choice.hidden, []);
  assert.deepStrictEqual(
    chooseMount('/dev/loop0', candidates([A_AT_M, over], [44]), { given: '/m', paths: ['/m'] })
      .hidden,
    [],
  );
});
