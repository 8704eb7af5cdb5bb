import { it } from 'mocha';
import { assert } from 'chai';
import { VoeError } from '../../../src/errors/index.js';
import { asVoeError } from '../../../src/fsresize/index.js';
import { FsResizeError } from '../../../src/fsresize/model/fsresize-error.js';

it('asVoeError keeps a VoeError and gives anything else FSRESIZE_UNEXPECTED_ERROR with the errno facts in details', () => {
  const typed = new FsResizeError('FSRESIZE_BUSY', 'busy');
  assert.strictEqual(asVoeError(typed), typed);
  const other = new VoeError('KUBE_REQUEST_FAILED', 'no answer');
  assert.strictEqual(asVoeError(other), other);
  const errno = Object.assign(new Error("ENOSPC: no space left on device, open '/tmp/f'"), {
    code: 'ENOSPC',
    syscall: 'open',
    path: '/tmp/f',
    errno: -28,
  });
  const wrapped = asVoeError(errno);
  assert.ok(wrapped instanceof FsResizeError);
  assert.strictEqual(wrapped.code, 'FSRESIZE_UNEXPECTED_ERROR');
  assert.match(
    wrapped.message,
    /^unexpected error: Error: ENOSPC: no space left on device, open '\/tmp\/f' — voe did not expect this failure, so it cannot say whether anything was changed/,
  );
  assert.deepStrictEqual(wrapped.details, {
    cause: { code: 'ENOSPC', syscall: 'open', path: '/tmp/f' },
  });
  assert.strictEqual(wrapped.cause, errno);
  const thrownString = asVoeError('just a string');
  assert.strictEqual(thrownString.code, 'FSRESIZE_UNEXPECTED_ERROR');
  assert.match(thrownString.message, /^unexpected error: just a string — /);
  assert.deepStrictEqual(thrownString.details, {});
  assert.strictEqual(asVoeError(undefined).code, 'FSRESIZE_UNEXPECTED_ERROR');
});
