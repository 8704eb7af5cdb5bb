import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VoeError } from '../../../src/errors/index.js';
import { asVoeError, FsResizeError } from '../../../src/fsresize/index.js';

test('asVoeError keeps a VoeError and gives anything else FSRESIZE_UNEXPECTED_ERROR with the errno facts in details', () => {
  const typed = new FsResizeError('FSRESIZE_BUSY', 'busy');
  assert.equal(asVoeError(typed), typed);
  const other = new VoeError('KUBE_REQUEST_FAILED', 'no answer');
  assert.equal(asVoeError(other), other);
  const errno = Object.assign(new Error("ENOSPC: no space left on device, open '/tmp/f'"), {
    code: 'ENOSPC',
    syscall: 'open',
    path: '/tmp/f',
    errno: -28,
  });
  const wrapped = asVoeError(errno);
  assert.ok(wrapped instanceof FsResizeError);
  assert.equal(wrapped.code, 'FSRESIZE_UNEXPECTED_ERROR');
  assert.match(
    wrapped.message,
    /^unexpected error: Error: ENOSPC: no space left on device, open '\/tmp\/f' — voe did not expect this failure, so it cannot say whether anything was changed/,
  );
  assert.deepEqual(wrapped.details, { cause: { code: 'ENOSPC', syscall: 'open', path: '/tmp/f' } });
  assert.equal(wrapped.cause, errno);
  const thrownString = asVoeError('just a string');
  assert.equal(thrownString.code, 'FSRESIZE_UNEXPECTED_ERROR');
  assert.match(thrownString.message, /^unexpected error: just a string — /);
  assert.deepEqual(thrownString.details, {});
  assert.equal(asVoeError(undefined).code, 'FSRESIZE_UNEXPECTED_ERROR');
});
