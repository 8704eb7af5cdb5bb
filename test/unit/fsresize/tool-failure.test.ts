import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolFailure } from '../../../src/fsresize/index.js';

test('a permission refusal becomes FSRESIZE_PERMISSION_DENIED carrying stderr', () => {
  const error = toolFailure('resize2fs', ['/dev/sdb'], { exitCode: 1, stdout: '', stderr: 'resize2fs 1.47.0 (5-Feb-2023)\nresize2fs: Permission denied to resize filesystem\n' }, 'growing ext4 on /dev/sdb');
  assert.equal(error.code, 'FSRESIZE_PERMISSION_DENIED');
  assert.match(error.message, /^growing ext4 on \/dev\/sdb failed: resize2fs \/dev\/sdb was refused by the kernel \(resize2fs 1\.47\.0 \(5-Feb-2023\) \/ resize2fs: Permission denied to resize filesystem\)/);
  assert.deepEqual(error.tool, { tool: 'resize2fs', args: ['/dev/sdb'], exitCode: 1, signal: null, stderr: 'resize2fs 1.47.0 (5-Feb-2023)\nresize2fs: Permission denied to resize filesystem\n' });
  assert.deepEqual(error.details.tool, error.tool);
});

test('any other non-zero exit becomes FSRESIZE_TOOL_FAILED with the exit code and the last stderr lines', () => {
  const error = toolFailure('xfs_growfs', ['-d', '/m'], { exitCode: 1, stdout: '', stderr: 'xfs_growfs: /m is not a mounted XFS filesystem\n' }, 'growing xfs on /dev/sdb');
  assert.equal(error.code, 'FSRESIZE_TOOL_FAILED');
  assert.match(error.message, /exited with 1 \(xfs_growfs: \/m is not a mounted XFS filesystem\)/);
  assert.equal(error.tool?.stderr, 'xfs_growfs: /m is not a mounted XFS filesystem\n');
});
