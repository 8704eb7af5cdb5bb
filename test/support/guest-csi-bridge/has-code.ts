import { assert } from 'chai';

/**
 * An expectation for expectThrow/expectRejection: the error has this stable `code` (and, when
 * given, a message matching `message`). Asserts inside, so a mismatch says what was found.
 */
export function hasCode(code: string, message?: RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    const found = error as { code?: unknown; message?: unknown };
    assert.strictEqual(found?.code, code, `error code of ${String(error)}`);
    if (message) assert.match(String(found.message), message);
    return true;
  };
}
