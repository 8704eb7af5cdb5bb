import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { EventRecorder, isKubeError, KubeErrorCode } from '../../../src/kube/index.js';
import { EventSeriesCache, eventKey, type EventInput } from '../../../src/kube/event-series.js';
import type { EventSink } from '../../../src/kube/event-sink.js';
import { TestClock } from '../../support/test-clock.js';

const ev = (over: Partial<EventInput> = {}): EventInput => ({
  regarding: {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    namespace: 'ns',
    name: 'data',
    uid: 'u1',
  },
  type: 'Warning',
  reason: 'VolumeResizeFailed',
  action: 'Resize',
  note: 'no space',
  ...over,
});

it('eventKey: identical events match; any of regarding, reason, action, note, type, related differing does not', () => {
  assert.strictEqual(eventKey(ev()), eventKey(ev()));
  const variants: Array<Partial<EventInput>> = [
    { reason: 'Other' },
    { action: 'Other' },
    { note: 'other' },
    { type: 'Normal' },
    {
      regarding: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: 'ns',
        name: 'data2',
        uid: 'u1',
      },
    },
    {
      regarding: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: 'ns',
        name: 'data',
        uid: 'u2',
      },
    },
    { related: { kind: 'VirtualMachine', name: 'vm' } },
  ];
  for (const v of variants)
    assert.notStrictEqual(eventKey(ev(v)), eventKey(ev()), JSON.stringify(v));
});

it('series cache: a repeat within the window bumps count and lastObservedAt of the same entry', () => {
  const c = new EventSeriesCache(60_000);
  let n = 0;
  const name = () => `e${++n}`;
  const a = c.observe(ev(), 1000, name, 'ns');
  assert.isFalse(a.repeat);
  assert.strictEqual(a.entry.count, 1);
  const b = c.observe(ev(), 30_000, name, 'ns');
  assert.isTrue(b.repeat);
  assert.strictEqual(b.entry, a.entry);
  assert.strictEqual(b.entry.count, 2);
  assert.strictEqual(b.entry.lastObservedAt, 30_000);
  const c3 = c.observe(ev(), 90_000, name, 'ns');
  assert.isTrue(c3.repeat, 'window counts from the last occurrence');
  assert.strictEqual(c3.entry.count, 3);
  const fresh = c.observe(ev(), 150_001, name, 'ns');
  assert.isFalse(fresh.repeat, 'after the window a new Event starts');
  assert.strictEqual(fresh.entry.name, 'e2');
  const other = c.observe(ev({ note: 'different' }), 150_002, name, 'ns');
  assert.isFalse(other.repeat);
});

it('series cache prune forgets closed series only', () => {
  const c = new EventSeriesCache(10);
  c.observe(ev(), 0, () => 'a', 'ns');
  c.observe(ev({ reason: 'B' }), 15, () => 'b', 'ns');
  c.prune(20);
  assert.strictEqual(c.size, 1);
});

function recordingSink(): EventSink & {
  calls: Array<{ op: string; ns: string; name: string; body: Record<string, unknown> }>;
  fail: number;
} {
  const sink = {
    calls: [] as Array<{ op: string; ns: string; name: string; body: Record<string, unknown> }>,
    fail: 0,
    async create(ns: string, event: Record<string, unknown>) {
      await new Promise<void>((r) => setImmediate(r));
      if (sink.fail > 0) {
        sink.fail--;
        throw new Error('api down');
      }
      sink.calls.push({
        op: 'create',
        ns,
        name: (event.metadata as { name: string }).name,
        body: event,
      });
    },
    async patchSeries(
      ns: string,
      name: string,
      series: { count: number; lastObservedTime: string },
    ) {
      await new Promise<void>((r) => setImmediate(r));
      sink.calls.push({ op: 'patch', ns, name, body: { series } });
    },
  };
  return sink;
}

it('recorder: record() returns at once; repeats become one create plus coalesced series patches', async () => {
  const sink = recordingSink();
  const clock = new TestClock();
  const r = new EventRecorder({
    sink,
    reportingController: 'voe.harvesterhci.io/test',
    reportingInstance: 'pod-1',
    clock,
  });
  r.record(ev());
  r.record(ev());
  r.record(ev());
  await r.flush();
  r.record(ev());
  await r.flush();
  assert.strictEqual(sink.calls[0]?.op, 'create');
  const created = sink.calls[0]?.body as Record<string, unknown>;
  assert.strictEqual(created.reportingController, 'voe.harvesterhci.io/test');
  assert.strictEqual(created.reportingInstance, 'pod-1');
  assert.match(
    String(created.eventTime),
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
    'MicroTime with 6 fractional digits',
  );
  assert.strictEqual(sink.calls.filter((c) => c.op === 'create').length, 1);
  const patches = sink.calls.filter((c) => c.op === 'patch');
  assert.ok(
    patches.length >= 1 && patches.length <= 2,
    `coalesced: ${patches.length} patches for 3 repeats`,
  );
  assert.ok(patches.every((p) => p.name === sink.calls[0]?.name));
  assert.deepStrictEqual((patches.at(-1)?.body.series as { count: number }).count, 4);
  await r.stop();
});

it('recorder: cluster-scoped objects record into "default"; long notes are cut to 1 kB; write errors are logged and not thrown', async () => {
  const sink = recordingSink();
  sink.fail = 1;
  const r = new EventRecorder({
    sink,
    reportingController: 'c',
    reportingInstance: 'i',
    clock: new TestClock(),
  });
  r.record(ev({ regarding: { kind: 'PersistentVolume', name: 'pv1' } }));
  await r.flush();
  assert.strictEqual(sink.calls.length, 0, 'failed create was dropped, not retried forever');
  r.record(ev({ regarding: { kind: 'PersistentVolume', name: 'pv2' }, note: 'x'.repeat(5000) }));
  await r.flush();
  assert.strictEqual(sink.calls[0]?.ns, 'default');
  assert.ok(Buffer.byteLength(String(sink.calls[0]?.body.note)) <= 1024);
  await r.stop();
  r.record(ev());
  assert.strictEqual(r.dropped, 1, 'after stop events are refused');
});

it('recorder validates reportingController/reportingInstance (1..128 chars)', () => {
  const sink = recordingSink();
  expectThrow(
    () => new EventRecorder({ sink, reportingController: '', reportingInstance: 'i' }),
    (e: unknown) => isKubeError(e, KubeErrorCode.EventRecorderConfig),
  );
  expectThrow(
    () => new EventRecorder({ sink, reportingController: 'c', reportingInstance: 'x'.repeat(129) }),
    (e: unknown) => isKubeError(e, KubeErrorCode.EventRecorderConfig),
  );
});
