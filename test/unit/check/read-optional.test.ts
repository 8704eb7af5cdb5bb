import { describe, it } from 'mocha';
import { assert } from 'chai';
import { ApiException } from '@kubernetes/client-node';
import { CheckError } from '../../../src/check/check-error.js';
import { readOptional } from '../../../src/check/read-optional.js';
import { expectRejection } from '../../support/expect-error.js';

/** The API server's answer with a Status, as @kubernetes/client-node raises it. */
function answer(code: number, message: string): ApiException<string> {
  return new ApiException(
    code,
    `HTTP-Code: ${code}`,
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code }),
    {},
  );
}

/** A read that fails with `failures` in turn, then answers 'list'; it counts its calls. */
function scripted(failures: ApiException<string>[]) {
  const read = async (): Promise<string> => {
    read.calls++;
    const failure = failures[read.calls - 1];
    if (failure) throw failure;
    return 'list';
  };
  read.calls = 0;
  return read;
}

const FAST = { retries: 3, minTimeoutMs: 1, maxTimeoutMs: 2 };
const INITIALIZING = () => answer(429, 'storage is (re)initializing');

describe('readOptional', () => {
  it("reads again while the API server answers 429 (a new CRD's storage initializing), as client-go does", async () => {
    const read = scripted([INITIALIZING(), INITIALIZING()]);
    assert.strictEqual(await readOptional('widgets in default', read, FAST), 'list');
    assert.strictEqual(read.calls, 3);
  });

  it('a 429 that stays is CHECK_API_FAILED saying to try again later, not to check the kubeconfig', async () => {
    const read = scripted(Array.from({ length: 10 }, INITIALIZING));
    await expectRejection(
      readOptional('widgets in default', read, FAST),
      (error: unknown) =>
        error instanceof CheckError &&
        error.code === 'CHECK_API_FAILED' &&
        error.message ===
          'reading widgets in default failed (HTTP 429): storage is (re)initializing. The API server asks to try again later; run it again in a moment.',
    );
    assert.strictEqual(read.calls, 4);
  });

  it("a 403 is not read again: CHECK_API_FAILED with the API server's words and the kubeconfig advice", async () => {
    const read = scripted([answer(403, 'User "x" cannot list resource "widgets"')]);
    await expectRejection(
      readOptional('widgets in default', read, FAST),
      (error: unknown) =>
        error instanceof CheckError &&
        /failed \(HTTP 403\): User "x" cannot list resource "widgets"\. Check the kubeconfig/.test(
          error.message,
        ),
    );
    assert.strictEqual(read.calls, 1);
  });

  it('a 404 reads as nothing, at once', async () => {
    const read = scripted([answer(404, 'not found')]);
    assert.isUndefined(await readOptional('widgets in default', read, FAST));
    assert.strictEqual(read.calls, 1);
  });
});
