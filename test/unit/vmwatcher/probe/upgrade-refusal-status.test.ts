import { describe, it } from 'mocha';
import { assert } from 'chai';
import { upgradeRefusalStatus } from '../../../../src/vmwatcher/probe/upgrade-refusal-status.js';

/** Messages of the errors @kubernetes/client-node's Exec rejects with (the ws package's). */
const CASES: Array<[string, number | undefined]> = [
  ['Unexpected server response: 403', 403],
  ['Unexpected server response: 404', 404],
  ['Unexpected server response: 400', 400],
  ['connect ECONNREFUSED 127.0.0.1:6443', undefined],
  ['Unexpected server response: 4031', undefined],
  ['', undefined],
];

describe('upgradeRefusalStatus', () => {
  for (const [message, expected] of CASES)
    it(`${JSON.stringify(message)} -> ${String(expected)}`, () =>
      assert.strictEqual(upgradeRefusalStatus(message), expected));
});
