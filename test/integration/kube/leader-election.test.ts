import { describe, it, after } from 'mocha';
import { assert } from 'chai';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { LeaderElector, leaseLock } from '../../../src/kube/index.js';
import type { LeaderElectorOptions } from '../../../src/kube/leader-elector.js';
import type { LeaseLock, VersionedLease } from '../../../src/kube/lease-lock.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventually } from '../../support/eventually.js';

const cp = await useControlPlane({ crds: false });
const coordination = cp.kubeConfig.makeApiClient(CoordinationV1Api);
const electors: LeaderElector[] = [];

/** Observes leadership across candidates; fails if two ever lead at once. */
function referee() {
  const leaders = new Set<string>();
  const history: string[] = [];
  let overlap = false;
  const callbacks = (
    id: string,
  ): Pick<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'> => ({
    onStartedLeading: () => {
      if (leaders.size > 0) overlap = true;
      leaders.add(id);
      history.push(`start ${id}`);
    },
    onStoppedLeading: () => {
      leaders.delete(id);
      history.push(`stop ${id}`);
    },
  });
  return { leaders, history, callbacks, overlap: () => overlap };
}

/** A candidate's look at the Lease: what its get() returned, and when (after the answer). */
interface Look {
  lease: VersionedLease | undefined;
  at: number;
}

/**
 * The Lease lock of one candidate, telling the test what the candidate saw: a candidate reads the
 * Lease at the start of every attempt, so its next read also means that its previous attempt (and
 * the decision taken on what it saw) is over.
 */
function watchedLock(
  name: string,
): LeaseLock & { seen(check: (look: Look) => boolean): Promise<Look>; nextRead(): Promise<void> } {
  const inner = leaseLock(cp.kubeConfig, 'default', name);
  const looks: Look[] = [];
  let onLook: Array<() => void> = [];
  let onRead: Array<() => void> = [];
  const changed = (): void => {
    const waiting = onLook;
    onLook = [];
    waiting.forEach((f) => f());
  };
  return {
    description: inner.description,
    create: (record, timeoutMs) => inner.create(record, timeoutMs),
    update: (record, resourceVersion, timeoutMs) =>
      inner.update(record, resourceVersion, timeoutMs),
    async get(timeoutMs) {
      const reading = onRead;
      onRead = [];
      reading.forEach((f) => f());
      const lease = await inner.get(timeoutMs);
      looks.push({ lease, at: Date.now() });
      changed();
      return lease;
    },
    /** Resolves with the first look (since the start) that passes `check`. */
    seen(check) {
      return new Promise((resolve) => {
        const find = (): void => {
          const look = looks.find(check);
          if (look) resolve(look);
          else onLook.push(find);
        };
        find();
      });
    },
    /** Resolves when the candidate next starts reading the Lease. */
    nextRead() {
      return new Promise((resolve) => {
        onRead.push(resolve);
      });
    },
  };
}

const holder = (look: Look): string | undefined => look.lease?.record.holderIdentity;

function elector(
  lease: string,
  identity: string,
  ref: ReturnType<typeof referee>,
  over: Partial<LeaderElectorOptions> = {},
): LeaderElector {
  const e = new LeaderElector({
    lock: leaseLock(cp.kubeConfig, 'default', lease),
    identity,
    // A renew deadline of several seconds: a leader must fail to renew for that long (not just be slow on a busy machine) to step down.
    leaseDurationMs: 6000,
    renewDeadlineMs: 4500,
    retryPeriodMs: 500,
    ...ref.callbacks(identity),
    ...over,
  });
  electors.push(e);
  void e.run();
  return e;
}

describe('LeaderElector against a real API server', () => {
  after(async () => {
    for (const e of electors) await e.stop();
  });

  it('two candidates: exactly one leads; when the leader stops renewing (crash, no release) the other takes over after the lease expires', async () => {
    const ref = referee();
    const newLeaders: string[] = [];
    const a = elector('crash', 'a', ref, {
      releaseOnStop: false,
      onNewLeader: (id) => newLeaders.push(`a sees ${id}`),
    });
    await eventually(() => a.isLeader, 20_000, 'a to lead');
    const bLock = watchedLock('crash');
    const b = elector('crash', 'b', ref, {
      lock: bLock,
      onNewLeader: (id) => newLeaders.push(`b sees ${id}`),
    });
    // a keeps renewing, so b must keep waiting: b reads a Lease that a renewed after the one b first
    // saw would have expired by b's clock (6 s lease, plus a retry period of margin), and its attempt
    // on it ends (b reads again) without taking over.
    const first = await bLock.seen((look) => holder(look) === 'a');
    await bLock.seen(
      (look) =>
        holder(look) === 'a' && Date.parse(look.lease!.record.renewTime!) > first.at + 6000 + 600,
    );
    await bLock.nextRead();
    assert.isFalse(b.isLeader);
    assert.isTrue(a.isLeader);
    const held = await coordination.readNamespacedLease({ namespace: 'default', name: 'crash' });
    assert.strictEqual(held.spec?.holderIdentity, 'a');
    assert.strictEqual(held.spec?.leaseTransitions, 0);

    await a.stop(); // stops renewing without releasing, like a crashed process
    const afterStop = await coordination.readNamespacedLease({
      namespace: 'default',
      name: 'crash',
    });
    assert.strictEqual(afterStop.spec?.holderIdentity, 'a', 'not released');
    await eventually(() => b.isLeader, 20_000, 'b to take over after expiry');
    const taken = await coordination.readNamespacedLease({ namespace: 'default', name: 'crash' });
    assert.strictEqual(taken.spec?.holderIdentity, 'b');
    assert.strictEqual(taken.spec?.leaseTransitions, 1, 'takeover counted');
    assert.isFalse(ref.overlap(), 'never two leaders at once');
    assert.deepStrictEqual(ref.history, ['start a', 'stop a', 'start b']);
    assert.ok(newLeaders.includes('b sees a') && newLeaders.includes('b sees b'));
  });

  it('release on stop hands leadership over at once (well before the lease would expire)', async () => {
    const ref = referee();
    const long = { leaseDurationMs: 60_000, renewDeadlineMs: 3000, retryPeriodMs: 500 };
    const a = elector('release', 'a', ref, long);
    await eventually(() => a.isLeader, 20_000, 'a to lead');
    const bLock = watchedLock('release');
    const b = elector('release', 'b', ref, { ...long, lock: bLock });
    // b has seen a's Lease and its attempt on it has ended (b reads again): it waits.
    await bLock.seen((look) => holder(look) === 'a');
    await bLock.nextRead();
    assert.isFalse(b.isLeader);
    await a.stop();
    const released = await coordination.readNamespacedLease({
      namespace: 'default',
      name: 'release',
    });
    assert.ok(
      released.spec?.holderIdentity === '' ||
        released.spec?.holderIdentity === undefined ||
        released.spec?.holderIdentity === 'b',
    );
    // A 60 s lease: taking over within 20 s is only possible through the release.
    await eventually(() => b.isLeader, 20_000, 'b to lead right after the release');
    const lease = await coordination.readNamespacedLease({ namespace: 'default', name: 'release' });
    assert.strictEqual(lease.spec?.holderIdentity, 'b');
    assert.strictEqual(lease.spec?.leaseTransitions, 1);
    assert.isFalse(ref.overlap());
  });

  it('several candidates racing for a new Lease: one wins (409 losers wait)', async () => {
    const ref = referee();
    const locks = ['x', 'y', 'z'].map(() => watchedLock('race'));
    const all = ['x', 'y', 'z'].map((id, i) => elector('race', id, ref, { lock: locks[i]! }));
    await eventually(() => all.some((e) => e.isLeader), 20_000, 'someone to lead');
    const leader = all.find((e) => e.isLeader)!.identity;
    // Every candidate has seen the winner's Lease and its attempt on it has ended (it reads again).
    await Promise.all(
      locks.map(async (lock) => {
        await lock.seen((look) => holder(look) === leader);
        await lock.nextRead();
      }),
    );
    assert.strictEqual(all.filter((e) => e.isLeader).length, 1);
    assert.strictEqual(all.find((e) => e.isLeader)?.identity, leader);
    assert.isFalse(ref.overlap());
  });

  it('a leader that cannot renew (API server down) steps down after renewDeadline, before others could take over', async () => {
    const ref = referee();
    const a = elector('partition', 'a', ref, {
      leaseDurationMs: 30_000,
      renewDeadlineMs: 3000,
      retryPeriodMs: 500,
      releaseOnStop: false,
    });
    await eventually(() => a.isLeader, 20_000, 'a to lead');
    await cp.stopApiServer();
    try {
      await eventually(() => !a.isLeader, 20_000, 'a to step down while it cannot renew');
      assert.deepStrictEqual(ref.history, ['start a', 'stop a']);
    } finally {
      await cp.startApiServer();
    }
    // Back to candidate: the Lease still names it and by its own clock it is its own lease, so it renews.
    await eventually(() => a.isLeader, 20_000, 'a to lead again once the API server is back');
    assert.isFalse(ref.overlap());
  });
});
