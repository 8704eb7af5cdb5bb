import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { ApiException } from '@kubernetes/client-node';
import { isKubeError, KubeErrorCode, LeaderElector } from '../../../src/kube/index.js';
import type { LeaseRecord } from '../../../src/kube/lease-decision.js';
import type { LeaseLock, VersionedLease } from '../../../src/kube/lease-lock.js';
import { TestClock } from '../../support/test-clock.js';

/** An in-memory Lease store with the API server's optimistic-concurrency answers (409 on stale resourceVersion). */
function memoryLock(): LeaseLock & { lease: VersionedLease | undefined; down: boolean } {
  let rv = 0;
  const conflict = () =>
    new ApiException(
      409,
      'x',
      JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict', message: 'modified' }),
      {},
    );
  const store = {
    description: 'mem/lease',
    lease: undefined as VersionedLease | undefined,
    down: false,
    async get() {
      if (store.down) throw new Error('ECONNREFUSED');
      return store.lease && structuredClone(store.lease);
    },
    async create(record: LeaseRecord) {
      if (store.down) throw new Error('ECONNREFUSED');
      if (store.lease)
        throw new ApiException(
          409,
          'x',
          JSON.stringify({ kind: 'Status', code: 409, reason: 'AlreadyExists' }),
          {},
        );
      store.lease = { record: { ...record }, resourceVersion: String(++rv) };
      return structuredClone(store.lease);
    },
    async update(record: LeaseRecord, resourceVersion: string) {
      if (store.down) throw new Error('ECONNREFUSED');
      if (!store.lease || store.lease.resourceVersion !== resourceVersion) throw conflict();
      store.lease = { record: { ...record }, resourceVersion: String(++rv) };
      return structuredClone(store.lease);
    },
  };
  return store;
}

const timing = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  random: () => 0,
};

it('follower takes over only after leaseDuration by its own clock once the leader stops renewing', async () => {
  const clock = new TestClock();
  const lock = memoryLock();
  const a = new LeaderElector({
    lock,
    identity: 'a',
    clock,
    wallClock: () => new Date(clock.now()),
    ...timing,
    releaseOnStop: false,
  });
  void a.run();
  await clock.advance(0);
  assert.ok(a.isLeader);
  const b = new LeaderElector({
    lock,
    identity: 'b',
    clock,
    wallClock: () => new Date(clock.now()),
    ...timing,
  });
  void b.run();
  await clock.advance(60_000);
  assert.ok(a.isLeader && !b.isLeader, 'a keeps renewing, b keeps waiting');
  const stopped = a.stop();
  await clock.advance(0);
  await stopped;
  const stopAt = clock.now();
  await clock.advance(12_000);
  assert.isFalse(b.isLeader, "not before the lease expired by b's observation");
  await clock.advance(8_000);
  assert.isTrue(b.isLeader);
  assert.ok(clock.now() - stopAt >= 15_000);
  assert.strictEqual(lock.lease?.record.holderIdentity, 'b');
  assert.strictEqual(lock.lease?.record.leaseTransitions, 1);
  const s = b.stop();
  await clock.advance(0);
  await s;
  assert.strictEqual(lock.lease?.record.holderIdentity, '', 'released on stop');
  assert.strictEqual(lock.lease?.record.leaseDurationSeconds, 1);
});

it('a leader that cannot renew steps down after renewDeadline, before the lease expires for others', async () => {
  const clock = new TestClock();
  const lock = memoryLock();
  const events: string[] = [];
  const a = new LeaderElector({
    lock,
    identity: 'a',
    clock,
    wallClock: () => new Date(clock.now()),
    ...timing,
    onStartedLeading: () => {
      events.push(`start@${clock.now()}`);
    },
    onStoppedLeading: () => {
      events.push(`stop@${clock.now()}`);
    },
  });
  void a.run();
  await clock.advance(0);
  lock.down = true;
  const downAt = clock.now();
  await clock.advance(20_000);
  assert.isFalse(a.isLeader);
  const stopAt = Number(events[1]?.split('@')[1]);
  assert.ok(
    stopAt - downAt <= timing.renewDeadlineMs + timing.retryPeriodMs,
    `stepped down at +${stopAt - downAt} ms`,
  );
  assert.ok(stopAt - downAt < timing.leaseDurationMs, 'before anyone else may take over');
  lock.down = false;
  await clock.advance(5_000);
  assert.isTrue(a.isLeader, 'campaigns again afterwards');
  const s = a.stop();
  await clock.advance(0);
  await s;
  assert.strictEqual(clock.pendingTimers, 0, 'no timers left');
});

it('configuration is validated like client-go', () => {
  const lock = memoryLock();
  const bad = (o: object) =>
    expectThrow(
      () => new LeaderElector({ lock, identity: 'a', ...o }),
      (e: unknown) => isKubeError(e, KubeErrorCode.LeaderElectionConfig),
    );
  bad({ identity: '' });
  bad({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 });
  bad({ renewDeadlineMs: 2_000, retryPeriodMs: 2_000 });
  bad({ leaseDurationMs: 15_500 });
});
