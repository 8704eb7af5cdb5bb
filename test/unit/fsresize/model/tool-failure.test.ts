import { it } from 'mocha';
import { assert } from 'chai';
import { fsckFailure, toolFailure } from '../../../../src/fsresize/model/tool-failure.js';

it('a permission refusal becomes FSRESIZE_PERMISSION_DENIED carrying stderr', () => {
  const error = toolFailure(
    'resize2fs',
    ['/dev/sdb'],
    {
      exitCode: 1,
      stdout: '',
      stderr: 'resize2fs 1.47.0 (5-Feb-2023)\nresize2fs: Permission denied to resize filesystem\n',
    },
    'growing ext4 on /dev/sdb',
  );
  assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED');
  assert.match(
    error.message,
    /^growing ext4 on \/dev\/sdb failed: resize2fs \/dev\/sdb was refused by the kernel \(resize2fs 1\.47\.0 \(5-Feb-2023\) \/ resize2fs: Permission denied to resize filesystem\)/,
  );
  assert.deepStrictEqual(error.tool, {
    tool: 'resize2fs',
    args: ['/dev/sdb'],
    exitCode: 1,
    signal: null,
    stderr: 'resize2fs 1.47.0 (5-Feb-2023)\nresize2fs: Permission denied to resize filesystem\n',
  });
  assert.deepStrictEqual(error.details.tool, error.tool);
  assert.match(error.message, /CAP_SYS_RESOURCE/);
});

it("a probe refused (it only reads) is told to read the device, not given the grow tools' capability advice", () => {
  for (const [tool, args] of [
    ['blkid', ['-p', '/dev/sdb']],
    ['btrfs', ['inspect-internal', 'dump-super', '/dev/sdb']],
  ] as const) {
    const error = toolFailure(
      tool,
      args,
      { exitCode: 2, stdout: '', stderr: `${tool}: error: /dev/sdb: Permission denied\n` },
      'detecting what is on /dev/sdb',
    );
    assert.strictEqual(error.code, 'FSRESIZE_PERMISSION_DENIED');
    assert.match(
      error.message,
      /; it needs to read the device: run voe as root \(or as a user that may read the device\)$/,
    );
    assert.notMatch(error.message, /CAP_SYS_RESOURCE/);
  }
  const grow = toolFailure(
    'btrfs',
    ['filesystem', 'resize', 'max', '/m'],
    { exitCode: 1, stdout: '', stderr: 'ERROR: unable to resize: Operation not permitted\n' },
    'growing btrfs',
  );
  assert.match(grow.message, /CAP_SYS_ADMIN/, 'btrfs growing is not a probe');
});

it('any other non-zero exit becomes FSRESIZE_TOOL_FAILED with the exit code and the last stderr lines', () => {
  const error = toolFailure(
    'xfs_growfs',
    ['-d', '/m'],
    { exitCode: 1, stdout: '', stderr: 'xfs_growfs: /m is not a mounted XFS filesystem\n' },
    'growing xfs on /dev/sdb',
  );
  assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
  assert.match(error.message, /exited with 1 \(xfs_growfs: \/m is not a mounted XFS filesystem\)/);
  assert.strictEqual(error.tool?.stderr, 'xfs_growfs: /m is not a mounted XFS filesystem\n');
});

it('a filesystem check that needs a person becomes FSRESIZE_FSCK_FAILED with the checker output', () => {
  const error = fsckFailure(
    'e2fsck',
    ['-f', '-p', '/dev/sdb'],
    { exitCode: 4, stdout: '/dev/sdb: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n', stderr: '' },
    'checking ext4 on /dev/sdb before growing it offline',
  );
  assert.strictEqual(error.code, 'FSRESIZE_FSCK_FAILED');
  assert.match(
    error.message,
    /e2fsck -f -p \/dev\/sdb exited with 4 \(\/dev\/sdb: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY\.\)/,
  );
  assert.match(
    error.message,
    /run 'e2fsck -f \/dev\/sdb' by hand, then grow again\. Nothing was grown/,
  );
  assert.strictEqual(error.tool?.exitCode, 4);
});

it('a filesystem checker that could not run at all (exit >= 8) is a plain tool failure', () => {
  const error = fsckFailure(
    'e2fsck',
    ['-f', '-p', '/dev/sdb'],
    {
      exitCode: 8,
      stdout: '',
      stderr: 'e2fsck: Device or resource busy while trying to open /dev/sdb\n',
    },
    'checking ext4 on /dev/sdb before growing it offline',
  );
  assert.strictEqual(error.code, 'FSRESIZE_TOOL_FAILED');
});

it('a device busy because it is mounted where voe cannot see it gets a hint: another mount namespace', () => {
  // What resize2fs and e2fsck say when the filesystem is mounted only in another mount namespace
  // (their open with O_EXCL fails), e.g. inside a container.
  const resize = toolFailure(
    'resize2fs',
    ['/dev/sdb'],
    {
      exitCode: 1,
      stdout: "Couldn't find valid filesystem superblock.\n",
      stderr:
        'resize2fs 1.47.0 (5-Feb-2023)\nresize2fs: Device or resource busy while trying to open /dev/sdb\n',
    },
    'growing ext4 on /dev/sdb',
  );
  assert.strictEqual(resize.code, 'FSRESIZE_TOOL_FAILED');
  assert.match(resize.message, /Device or resource busy while trying to open \/dev\/sdb/);
  assert.match(
    resize.message,
    /mounted in another mount namespace \(e\.g\. a container\)\? .*grow it where it is mounted/,
  );
  const check = fsckFailure(
    'e2fsck',
    ['-f', '-p', '/dev/sdb'],
    {
      exitCode: 8,
      stdout: '/dev/sdb is in use.\n',
      stderr: 'e2fsck: Cannot continue, aborting.\n\n',
    },
    'checking ext4 on /dev/sdb before growing it offline',
  );
  assert.strictEqual(check.code, 'FSRESIZE_TOOL_FAILED');
  assert.match(
    check.message,
    /exited with 8 \(\/dev\/sdb is in use\. \/ e2fsck: Cannot continue, aborting\.\)/,
    'what e2fsck said on stdout is quoted',
  );
  assert.match(check.message, /mounted in another mount namespace \(e\.g\. a container\)\?/);
  const other = toolFailure(
    'resize2fs',
    ['/dev/sdb'],
    { exitCode: 1, stdout: '', stderr: 'resize2fs: Bad magic number in super-block\n' },
    'growing ext4 on /dev/sdb',
  );
  assert.notMatch(other.message, /mount namespace/, 'only for a busy device');
});

it('a grow tool that fails after the pre-check says the check ran, and that its fixes are written only when it made some (exit 1)', () => {
  const failed = {
    exitCode: 1,
    stdout: '',
    stderr: 'resize2fs: No space left on device while trying to resize /dev/sdb\n',
  };
  const fixed = toolFailure('resize2fs', ['/dev/sdb'], failed, 'growing ext4 on /dev/sdb', {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: 1,
  });
  assert.match(
    fixed.message,
    /; e2fsck -f -p \/dev\/sdb ran first \(exit 1: errors corrected\) and its fixes are written$/,
  );
  const clean = toolFailure('resize2fs', ['/dev/sdb'], failed, 'growing ext4 on /dev/sdb', {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: 0,
  });
  assert.match(clean.message, /; e2fsck -f -p \/dev\/sdb ran first \(exit 0: no errors\)$/);
  assert.notMatch(clean.message, /fixes/, 'a check that found nothing wrote no fixes');
  const denied = toolFailure(
    'resize2fs',
    ['/dev/sdb'],
    { exitCode: 1, stdout: '', stderr: 'resize2fs: Permission denied to resize filesystem\n' },
    'growing ext4 on /dev/sdb',
    { command: ['e2fsck', '-f', '-p', '/dev/sdb'], exitCode: 0 },
  );
  assert.strictEqual(denied.code, 'FSRESIZE_PERMISSION_DENIED');
  assert.match(denied.message, /ran first \(exit 0: no errors\)$/);
  assert.deepStrictEqual(clean.details['precheck'], {
    command: ['e2fsck', '-f', '-p', '/dev/sdb'],
    exitCode: 0,
  });
});
