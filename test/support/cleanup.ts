/**
 * Per-test clean-up for mocha: `onCleanup(fn)` inside a test runs `fn` once that test has ended,
 * passed or failed, in the order registered (as node:test's `t.after` did). The root hook below
 * drains the list after each test; it is loaded for every run with `--require` (see
 * scripts/run-tests.mjs), and test files import the same module instance. Inside a `before` hook,
 * use mocha's own `after` instead: the list is drained after the next test.
 */
const pending: Array<() => unknown> = [];

/** Runs `fn` after the current test. */
export function onCleanup(fn: () => unknown): void {
  pending.push(fn);
}

/** Runs every registered clean-up, even after one fails; rethrows the first failure. */
export async function runCleanups(): Promise<void> {
  let first: { error: unknown } | undefined;
  for (const fn of pending.splice(0)) {
    try {
      await fn();
    } catch (error) {
      first ??= { error };
    }
  }
  if (first) throw first.error;
}

/** mocha root hook plugin. */
export const mochaHooks = {
  afterEach: runCleanups,
};
