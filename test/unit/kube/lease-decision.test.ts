import { it } from 'mocha';
import { assert } from 'chai';
import { decideLease, releasedRecord, type LeaseRecord } from '../../../src/kube/lease-decision.js';

const T = '2026-11-21T06:00:00.000000Z';
const LATER = '2026-11-21T06:00:02.000000Z';
const held = (holder: string, over: Partial<LeaseRecord> = {}): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: T,
  renewTime: T,
  leaseTransitions: 3,
  ...over,
});
const base = { identity: 'me', nowTime: LATER, leaseDurationSeconds: 15 };

it('no lease: create it, holding it, with 0 transitions', () => {
  const { decision } = decideLease({ ...base, current: undefined, previous: undefined, now: 0 });
  assert.deepStrictEqual(decision, {
    action: 'create',
    record: {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: LATER,
      renewTime: LATER,
      leaseTransitions: 0,
    },
  });
});

it('held by someone else and first seen now: wait until observedAt + leaseDuration by OUR clock', () => {
  const { decision, observation } = decideLease({
    ...base,
    current: held('other'),
    previous: undefined,
    now: 100_000,
  });
  assert.deepStrictEqual(decision, { action: 'wait', holder: 'other', expiresAt: 115_000 });
  assert.strictEqual(observation?.observedAt, 100_000);
});

it('renewTime far in the past by the holder clock does not make it expired: only our observation counts', () => {
  const old = held('other', { renewTime: '2000-01-01T00:00:00.000000Z' });
  const { decision } = decideLease({ ...base, current: old, previous: undefined, now: 5 });
  assert.strictEqual(decision.action, 'wait');
});

it('unchanged record observed for leaseDuration: take over, transitions + 1', () => {
  const first = decideLease({ ...base, current: held('other'), previous: undefined, now: 1000 });
  const mid = decideLease({
    ...base,
    current: held('other'),
    previous: first.observation,
    now: 15_999,
  });
  assert.strictEqual(mid.decision.action, 'wait');
  assert.strictEqual(
    mid.observation?.observedAt,
    1000,
    'same record keeps the first observation time',
  );
  const late = decideLease({
    ...base,
    current: held('other'),
    previous: mid.observation,
    now: 16_000,
  });
  assert.deepStrictEqual(late.decision, {
    action: 'acquire',
    record: {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: LATER,
      renewTime: LATER,
      leaseTransitions: 4,
    },
  });
});

it('a renew by the holder restarts our observation clock', () => {
  const first = decideLease({ ...base, current: held('other'), previous: undefined, now: 1000 });
  const renewed = decideLease({
    ...base,
    current: held('other', { renewTime: LATER }),
    previous: first.observation,
    now: 15_000,
  });
  assert.strictEqual(renewed.decision.action, 'wait');
  assert.strictEqual(renewed.observation?.observedAt, 15_000);
  const later = decideLease({
    ...base,
    current: held('other', { renewTime: LATER }),
    previous: renewed.observation,
    now: 20_000,
  });
  assert.strictEqual(later.decision.action, 'wait');
});

it('the lease duration written in the record (not ours) decides expiry', () => {
  const first = decideLease({
    ...base,
    current: held('other', { leaseDurationSeconds: 60 }),
    previous: undefined,
    now: 0,
  });
  assert.deepStrictEqual(first.decision, { action: 'wait', holder: 'other', expiresAt: 60_000 });
});

it('we hold it: renew, keeping acquireTime and transitions', () => {
  const { decision } = decideLease({ ...base, current: held('me'), previous: undefined, now: 0 });
  assert.deepStrictEqual(decision, {
    action: 'renew',
    record: {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: T,
      renewTime: LATER,
      leaseTransitions: 3,
    },
  });
});

it('released lease (empty holder): acquire at once, transitions + 1', () => {
  const released = releasedRecord(held('other'), T);
  assert.deepStrictEqual(released, {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: T,
    renewTime: T,
    leaseTransitions: 3,
  });
  const { decision } = decideLease({ ...base, current: released, previous: undefined, now: 0 });
  assert.strictEqual(decision.action, 'acquire');
  assert.strictEqual(decision.action === 'acquire' && decision.record.leaseTransitions, 4);
});
