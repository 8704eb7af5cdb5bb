import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFsResizeError } from '../../../src/fsresize/index.js';
import { extSuperblock } from '../../support/ext-superblock.js';
import { fakeResizer } from '../../support/fake-fsresize-ports.js';

const MiB = 1024 * 1024;

test('blkid exit 2 without a word is an unformatted device (a no-op with the reason)', async () => {
  const resizer = fakeResizer({ devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } }, tool: () => ({ exitCode: 2 }) });
  const result = await resizer.grow('/dev/sdb');
  assert.equal(result.action, 'noop');
  assert.match(result.reason, /not formatted/);
});

test('blkid exit 2 with an error on stderr is a tool failure, not "unformatted"', async () => {
  const denied = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } },
    tool: () => ({ exitCode: 2, stderr: 'blkid: error: /dev/sdb: Permission denied\n' }),
  });
  await assert.rejects(denied.inspect('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.equal(error.code, 'FSRESIZE_PERMISSION_DENIED');
    assert.equal(error.tool?.tool, 'blkid');
    assert.equal(error.tool?.exitCode, 2);
    return true;
  });
  const broken = fakeResizer({
    devices: { '/dev/sdb': { majorMinor: '8:16', bytes: 64 * MiB } },
    tool: () => ({ exitCode: 2, stderr: 'blkid: error: /dev/sdb: Input/output error\n' }),
  });
  await assert.rejects(broken.grow('/dev/sdb'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.equal(error.code, 'FSRESIZE_TOOL_FAILED');
    assert.match(error.message, /blkid .* exited with 2 \(blkid: error: \/dev\/sdb: Input\/output error\)/);
    return true;
  });
});

test('a device of 0 bytes is FSRESIZE_DEVICE_EMPTY, saying it has no size; nothing is probed or run', async () => {
  const resizer = fakeResizer({ devices: { '/dev/loop9': { majorMinor: '7:9', bytes: 0, superblock: extSuperblock(1000, 2) } }, tool: () => ({ exitCode: 2 }) });
  await assert.rejects(resizer.grow('/dev/loop9'), (error: unknown) => {
    assert.ok(isFsResizeError(error));
    assert.equal(error.code, 'FSRESIZE_DEVICE_EMPTY');
    assert.match(error.message, /^\/dev\/loop9 has no size \(0 bytes\)/);
    assert.match(error.message, /nothing was changed/);
    return true;
  });
  assert.deepEqual(resizer.calls, [], 'blkid was not asked about an empty device');
  const inspection = await resizer.inspect('/dev/loop9');
  assert.equal(inspection.deviceBytes, 0);
  assert.equal(inspection.filesystem, null);
  assert.equal(resizer.needsResize(inspection), false);
});
