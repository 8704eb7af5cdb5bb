import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { LeaderElector, leaseLock, type LeaderElectorOptions } from '../../../src/kube/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventually } from '../../support/held-clock.js';

const cp = await useControlPlane({ crds: false });
const coordination = cp.kubeConfig.makeApiClient(CoordinationV1Api);
const electors: LeaderElector[] = [];
after(async () => {
  for (const e of electors) await e.stop();
});

/** Observes leadership across candidates; fails if two ever lead at once. */
function referee() {
  const leaders = new Set<string>();
  const history: string[] = [];
  let overlap = false;
  const callbacks = (id: string): Pick<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'> => ({
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

function elector(lease: string, identity: string, ref: ReturnType<typeof referee>, over: Partial<LeaderElectorOptions> = {}): LeaderElector {
  const e = new LeaderElector({
    lock: leaseLock(cp.kubeConfig, 'default', lease), identity,
    // A renew deadline of several seconds: a leader must fail to renew for that long (not just be slow on a busy machine) to step down.
    leaseDurationMs: 6000, renewDeadlineMs: 4500, retryPeriodMs: 500,
    ...ref.callbacks(identity), ...over,
  });
  electors.push(e);
  void e.run();
  return e;
}

test('two candidates: exactly one leads; when the leader stops renewing (crash, no release) the other takes over after the lease expires', async () => {
  const ref = referee();
  const newLeaders: string[] = [];
  const a = elector('crash', 'a', ref, { releaseOnStop: false, onNewLeader: (id) => newLeaders.push(`a sees ${id}`) });
  await eventually(() => a.isLeader, 20_000, 'a to lead');
  const b = elector('crash', 'b', ref, { onNewLeader: (id) => newLeaders.push(`b sees ${id}`) });
  await new Promise((r) => setTimeout(r, 7000)); // longer than the lease: a keeps renewing, so b must keep waiting
  assert.equal(b.isLeader, false);
  assert.equal(a.isLeader, true);
  const held = await coordination.readNamespacedLease({ namespace: 'default', name: 'crash' });
  assert.equal(held.spec?.holderIdentity, 'a');
  assert.equal(held.spec?.leaseTransitions, 0);

  await a.stop(); // stops renewing without releasing, like a crashed process
  const afterStop = await coordination.readNamespacedLease({ namespace: 'default', name: 'crash' });
  assert.equal(afterStop.spec?.holderIdentity, 'a', 'not released');
  await eventually(() => b.isLeader, 20_000, 'b to take over after expiry');
  const taken = await coordination.readNamespacedLease({ namespace: 'default', name: 'crash' });
  assert.equal(taken.spec?.holderIdentity, 'b');
  assert.equal(taken.spec?.leaseTransitions, 1, 'takeover counted');
  assert.equal(ref.overlap(), false, 'never two leaders at once');
  assert.deepEqual(ref.history, ['start a', 'stop a', 'start b']);
  assert.ok(newLeaders.includes('b sees a') && newLeaders.includes('b sees b'));
});

test('release on stop hands leadership over at once (well before the lease would expire)', async () => {
  const ref = referee();
  const long = { leaseDurationMs: 60_000, renewDeadlineMs: 3000, retryPeriodMs: 500 };
  const a = elector('release', 'a', ref, long);
  await eventually(() => a.isLeader, 20_000, 'a to lead');
  const b = elector('release', 'b', ref, long);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(b.isLeader, false);
  await a.stop();
  const released = await coordination.readNamespacedLease({ namespace: 'default', name: 'release' });
  assert.ok(released.spec?.holderIdentity === '' || released.spec?.holderIdentity === undefined || released.spec?.holderIdentity === 'b');
  // A 60 s lease: taking over within 20 s is only possible through the release.
  await eventually(() => b.isLeader, 20_000, 'b to lead right after the release');
  const lease = await coordination.readNamespacedLease({ namespace: 'default', name: 'release' });
  assert.equal(lease.spec?.holderIdentity, 'b');
  assert.equal(lease.spec?.leaseTransitions, 1);
  assert.equal(ref.overlap(), false);
});

test('several candidates racing for a new Lease: one wins (409 losers wait)', async () => {
  const ref = referee();
  const all = ['x', 'y', 'z'].map((id) => elector('race', id, ref));
  await eventually(() => all.some((e) => e.isLeader), 20_000, 'someone to lead');
  await new Promise((r) => setTimeout(r, 2000));
  assert.equal(all.filter((e) => e.isLeader).length, 1);
  assert.equal(ref.overlap(), false);
});

test('a leader that cannot renew (API server down) steps down after renewDeadline, before others could take over', async () => {
  const ref = referee();
  const a = elector('partition', 'a', ref, { leaseDurationMs: 30_000, renewDeadlineMs: 3000, retryPeriodMs: 500, releaseOnStop: false });
  await eventually(() => a.isLeader, 20_000, 'a to lead');
  await cp.stopApiServer();
  try {
    await eventually(() => !a.isLeader, 20_000, 'a to step down while it cannot renew');
    assert.deepEqual(ref.history, ['start a', 'stop a']);
  } finally {
    await cp.startApiServer();
  }
  // Back to candidate: the Lease still names it and by its own clock it is its own lease, so it renews.
  await eventually(() => a.isLeader, 20_000, 'a to lead again once the API server is back');
  assert.equal(ref.overlap(), false);
});
