import { it } from 'mocha';
import { assert } from 'chai';
import { removesRegistration } from '../../../../src/webhook/registration/remove-registration-if-namespace-ends.js';

it('a stopping webhook removes its registration only when its namespace is being deleted or gone', () => {
  assert.isTrue(removesRegistration({ deletionTimestamp: '2026-12-07T00:00:00Z' }));
  assert.isTrue(removesRegistration(undefined));
  assert.isFalse(removesRegistration({}), 'a rollout, eviction or drain keeps it');
});
