import { it } from 'mocha';
import { assert } from 'chai';
import { histogramTotals, observedBetween } from '../../../bench/support/histogram-totals.js';

const text = [
  '# TYPE voe_tracker_queue_wait_seconds histogram',
  'voe_tracker_queue_wait_seconds_bucket{le="0.005"} 3',
  'voe_tracker_queue_wait_seconds_sum 0.75',
  'voe_tracker_queue_wait_seconds_count 5',
  'voe_tracker_queue_wait_seconds_total_sum 9',
].join('\n');

it('histogramTotals reads the _sum and _count of one histogram, 0 when absent', () => {
  assert.deepStrictEqual(histogramTotals(text, 'voe_tracker_queue_wait_seconds'), {
    sum: 0.75,
    count: 5,
  });
  assert.deepStrictEqual(histogramTotals(text, 'voe_other_seconds'), { sum: 0, count: 0 });
});

it('observedBetween: how many were observed between two readings and their mean in ms', () => {
  assert.deepStrictEqual(observedBetween({ sum: 0.75, count: 5 }, { sum: 1.75, count: 9 }), {
    count: 4,
    meanMs: 250,
  });
  assert.deepStrictEqual(observedBetween({ sum: 1, count: 2 }, { sum: 1, count: 2 }), {
    count: 0,
    meanMs: 0,
  });
});
