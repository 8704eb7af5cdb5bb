import { it } from 'mocha';
import { assert } from 'chai';
import { WorkQueue, runWorkers, ok, retryAfter } from '../../../src/kube/index.js';
import { ItemExponentialRateLimiter } from '../../../src/kube/rate-limiter.js';
import { retry } from '../../../src/kube/run-workers.js';
import { TestClock, settle } from '../../support/test-clock.js';

it('rate limiter: per-item exponential 1s, 2s, 4s ... capped at 5 min; forget resets', () => {
  const rl = new ItemExponentialRateLimiter<string>();
  const delays = Array.from({ length: 12 }, () => rl.when('a'));
  assert.deepStrictEqual(
    delays,
    [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000, 300000],
  );
  assert.strictEqual(rl.when('b'), 1000, 'keys are independent');
  assert.strictEqual(rl.numRequeues('a'), 12);
  rl.forget('a');
  assert.strictEqual(rl.numRequeues('a'), 0);
  assert.strictEqual(rl.when('a'), 1000);
});

it('rate limiter bounds are configurable', () => {
  const rl = new ItemExponentialRateLimiter<string>({ baseDelayMs: 5, maxDelayMs: 30 });
  assert.deepStrictEqual(
    [rl.when('k'), rl.when('k'), rl.when('k'), rl.when('k'), rl.when('k')],
    [5, 10, 20, 30, 30],
  );
});

it('a key is queued once while waiting (dedup) and FIFO otherwise', async () => {
  const q = new WorkQueue<string>({ clock: new TestClock() });
  q.add('a');
  q.add('b');
  q.add('a');
  q.add('c');
  q.add('b');
  assert.strictEqual(q.length, 3);
  assert.deepStrictEqual([await q.get(), await q.get(), await q.get()], ['a', 'b', 'c']);
});

it('one worker per key: a key re-added while processing is handed out again only after done', async () => {
  const q = new WorkQueue<string>({ clock: new TestClock() });
  q.add('a');
  const first = await q.get();
  assert.strictEqual(first, 'a');
  q.add('a');
  q.add('a');
  assert.strictEqual(q.length, 0, 'not queued while being processed');
  let second: string | undefined;
  void q.get().then((k) => {
    second = k;
  });
  await settle();
  assert.isUndefined(second, 'no other worker gets it meanwhile');
  q.done('a');
  await settle();
  assert.strictEqual(second, 'a', 'queued once again after done');
  q.done('a');
  assert.strictEqual(q.length, 0);
});

it('addAfter waits for the clock; the earliest pending delay wins', async () => {
  const clock = new TestClock();
  const q = new WorkQueue<string>({ clock });
  q.addAfter('a', 5000);
  q.addAfter('a', 1000);
  q.addAfter('a', 9000);
  assert.strictEqual(q.delayedCount, 1);
  await clock.advance(999);
  assert.strictEqual(q.length, 0);
  await clock.advance(1);
  assert.strictEqual(q.length, 1);
  assert.strictEqual(clock.pendingTimers, 0, 'later requests were merged, no timer left');
});

it('addRateLimited backs off per key and forget resets the backoff', async () => {
  const clock = new TestClock();
  const q = new WorkQueue<string>({ clock });
  assert.strictEqual(q.addRateLimited('k'), 1000);
  await clock.advance(1000);
  assert.strictEqual(await q.get(), 'k');
  q.done('k');
  assert.strictEqual(q.addRateLimited('k'), 2000);
  await clock.advance(1999);
  assert.strictEqual(q.length, 0);
  await clock.advance(1);
  assert.strictEqual(q.length, 1);
  q.forget('k');
  assert.strictEqual(q.numRequeues('k'), 0);
});

it('shutDown drains queued keys, drops delayed ones, leaves no timer, and get() then returns undefined', async () => {
  const clock = new TestClock();
  const q = new WorkQueue<string>({ clock });
  q.add('a');
  q.add('b');
  q.addAfter('later', 10_000);
  const processed: string[] = [];
  const workers = runWorkers(q, 2, (k) => {
    processed.push(k);
  });
  await settle();
  let drained = false;
  const shut = q.shutDown().then(() => {
    drained = true;
  });
  q.add('refused');
  await shut;
  await workers;
  assert.ok(drained);
  assert.deepStrictEqual(processed.sort(), ['a', 'b']);
  assert.strictEqual(clock.pendingTimers, 0);
  assert.isUndefined(await q.get());
});

it('shutDown waits for an item in progress', async () => {
  const q = new WorkQueue<string>({ clock: new TestClock() });
  q.add('a');
  const key = await q.get();
  let drained = false;
  const shut = q.shutDown().then(() => {
    drained = true;
  });
  await settle();
  assert.isFalse(drained);
  q.done(key as string);
  await shut;
  assert.isTrue(drained);
});

it('shutDown({drain:false}) drops queued keys', async () => {
  const q = new WorkQueue<string>({ clock: new TestClock() });
  q.add('a');
  q.add('b');
  await q.shutDown({ drain: false });
  assert.strictEqual(q.length, 0);
  assert.isUndefined(await q.get());
});

it('runWorkers: retry backs off, throw backs off, retryAfter uses the given delay, ok forgets', async () => {
  const clock = new TestClock();
  const q = new WorkQueue<string>({ clock });
  const calls: Array<[string, number]> = [];
  const plan: Record<string, Array<'retry' | 'throw' | 'ok' | 'after'>> = {
    k: ['retry', 'throw', 'retry', 'ok'],
    r: ['after', 'ok'],
  };
  const workers = runWorkers(q, 3, (key) => {
    calls.push([key, clock.now()]);
    const step = plan[key]?.shift();
    if (step === 'throw') throw new Error('boom');
    if (step === 'retry') return retry();
    if (step === 'after') return retryAfter(7000);
    return ok();
  });
  q.add('k');
  q.add('r');
  await clock.advance(60_000);
  assert.deepStrictEqual(
    calls.filter(([k]) => k === 'k').map(([, t]) => t),
    [0, 1000, 3000, 7000],
    'backoff 1 s, 2 s, 4 s between attempts',
  );
  assert.deepStrictEqual(
    calls.filter(([k]) => k === 'r').map(([, t]) => t),
    [0, 7000],
  );
  assert.strictEqual(q.numRequeues('k'), 0, 'forgotten after success');
  assert.strictEqual(q.length + q.delayedCount, 0, 'nothing more scheduled after success');
  await q.shutDown();
  await workers;
});

it('runWorkers never runs one key on two workers at once', async () => {
  const q = new WorkQueue<string>({ clock: new TestClock() });
  const active = new Set<string>();
  let overlap = false;
  let runs = 0;
  const workers = runWorkers(q, 4, async (key) => {
    if (active.has(key)) overlap = true;
    active.add(key);
    runs++;
    await settle();
    active.delete(key);
  });
  for (let i = 0; i < 20; i++) {
    q.add('same');
    q.add(`k${i % 3}`);
    await new Promise<void>((r) => setImmediate(r));
  }
  await q.shutDown();
  await workers;
  assert.isFalse(overlap);
  assert.ok(runs >= 4);
});
