/**
 * Checks a thrown error or a rejection against what is expected of it, with chai's assert
 * (chai-as-promised is registered here too, for tests that call assert.isRejected themselves):
 * - a RegExp: matched against `String(error)` (its name and message);
 * - an Error class: the error is an instance of it;
 * - an object: each of its properties equals (deeply, strictly) the error's, or, for a RegExp
 *   against a string property, matches it;
 * - a function that is not an Error class: called with the error, must return true.
 * Both resolve or return the error, for further checks.
 */
import { assert, use } from 'chai';
import chaiAsPromised from 'chai-as-promised';

use(chaiAsPromised);

type ErrorClass = abstract new (...args: never[]) => unknown;
export type ErrorExpectation = RegExp | ErrorClass | ((error: never) => boolean) | object;

function isErrorClass(expected: unknown): expected is ErrorClass {
  return (
    typeof expected === 'function' &&
    (expected === Error || Object.prototype.isPrototypeOf.call(Error, expected))
  );
}

/** Fails unless `error` is what `expected` describes. */
export function checkError(error: unknown, expected?: ErrorExpectation, message?: string): void {
  if (expected === undefined) return;
  const prefix = message ? `${message}: ` : '';
  if (expected instanceof RegExp) {
    assert.match(String(error), expected, message);
  } else if (isErrorClass(expected)) {
    assert.instanceOf(error, expected as unknown as new () => unknown, message);
  } else if (typeof expected === 'function') {
    const fn = expected as (error: unknown) => boolean;
    assert.isTrue(
      fn(error),
      `${prefix}the validation function did not return true for ${String(error)}`,
    );
  } else {
    // Any object, an Error too (chai's isObject accepts plain objects only).
    assert.isTrue(
      typeof error === 'object' && error !== null,
      `${prefix}expected an object, got ${String(error)}`,
    );
    const actual = error as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected as Record<string, unknown>)) {
      const label = `${prefix}property ${key} of ${String(error)}`;
      if (value instanceof RegExp && typeof actual[key] === 'string') {
        assert.match(actual[key], value, label);
      } else {
        assert.deepStrictEqual(actual[key], value, label);
      }
    }
  }
}

/** Fails unless `fn` throws what `expected` describes; returns the error. */
export function expectThrow(
  fn: () => unknown,
  expected?: ErrorExpectation,
  message?: string,
): unknown {
  let thrown: { error: unknown } | undefined;
  try {
    fn();
  } catch (error) {
    thrown = { error };
  }
  if (thrown === undefined) return assert.fail(message ?? 'expected the function to throw');
  checkError(thrown.error, expected, message);
  return thrown.error;
}

/**
 * Fails unless `promise` (or the promise `promise()` returns) rejects with what `expected`
 * describes; resolves with the rejection reason.
 */
export async function expectRejection(
  promise: Promise<unknown> | (() => Promise<unknown>),
  expected?: ErrorExpectation,
  message?: string,
): Promise<unknown> {
  const settled = typeof promise === 'function' ? promise() : promise;
  // Not assert.isRejected(settled, message): chai-as-promised reads a string there as what the
  // error message must include.
  let rejected: { error: unknown } | undefined;
  try {
    await settled;
  } catch (error) {
    rejected = { error };
  }
  if (rejected === undefined) return assert.fail(message ?? 'expected the promise to reject');
  checkError(rejected.error, expected, message);
  return rejected.error;
}
