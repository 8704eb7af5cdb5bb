import { it } from 'mocha';
import { assert } from 'chai';
import { Counter, Gauge, Registry } from 'prom-client';
import { sumSamples } from '../../support/webhook/sum-samples.js';

it('sums the samples of one metric whose labels include the given ones, as prom-client writes them', async () => {
  const registry = new Registry();
  const requests = new Counter({
    name: 'voe_webhook_requests_total',
    help: 'h',
    labelNames: ['webhook', 'decision', 'reason'],
    registers: [registry],
  });
  const other = new Counter({
    name: 'voe_webhook_requests_total_other',
    help: 'h',
    labelNames: ['webhook'],
    registers: [registry],
  });
  const plain = new Gauge({ name: 'voe_plain', help: 'h', registers: [registry] });
  requests.inc({ webhook: 'setting', decision: 'allowed', reason: 'setting-valid' }, 2);
  requests.inc(
    { webhook: 'setting', decision: 'refused', reason: 'quote " and \\ and\nnewline' },
    3,
  );
  requests.inc({ webhook: 'pvc-resize', decision: 'allowed', reason: 'setting-valid' }, 5);
  other.inc({ webhook: 'setting' }, 100);
  plain.set(1.5e9);
  const text = await registry.metrics();
  assert.strictEqual(sumSamples(text, 'voe_webhook_requests_total', { webhook: 'setting' }), 5);
  assert.strictEqual(
    sumSamples(text, 'voe_webhook_requests_total', {
      webhook: 'setting',
      reason: 'quote " and \\ and\nnewline',
    }),
    3,
    'escaped label values',
  );
  assert.strictEqual(
    sumSamples(text, 'voe_webhook_requests_total'),
    10,
    'not the metric whose name only starts the same',
  );
  assert.strictEqual(sumSamples(text, 'voe_webhook_requests_total', { webhook: 'vm' }), 0);
  assert.strictEqual(sumSamples(text, 'voe_plain'), 1.5e9, 'a sample without labels');
  assert.strictEqual(sumSamples('', 'voe_plain'), 0);
  assert.strictEqual(
    sumSamples('voe_plain{webhook="x" 3\nvoe_plain NaN\nvoe_plain +Inf\n', 'voe_plain'),
    0,
    'unreadable lines and non-finite values count nothing',
  );
});
