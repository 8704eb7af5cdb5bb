import { it } from 'mocha';
import { assert } from 'chai';
import { median, medianInterval } from '../../../bench/support/median-interval.js';

it('median: the middle value, the mean of the two middle ones for an even count, NaN for none; the input is not reordered', () => {
  const values = [3, 1, 2];
  assert.strictEqual(median(values), 2);
  assert.deepStrictEqual(values, [3, 1, 2]);
  assert.strictEqual(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

it('medianInterval: holds the median, is the same for the same values, and narrows as the sample grows', () => {
  const spread = (n: number): number[] =>
    Array.from({ length: n }, (_, i) => 1 + ((i * 37) % 101) / 1000);
  const small = medianInterval(spread(15));
  assert.strictEqual(small.median, median(spread(15)));
  assert.ok(small.low <= small.median && small.median <= small.high, JSON.stringify(small));
  assert.deepStrictEqual(medianInterval(spread(15)), small);
  assert.strictEqual(small.confidence, 0.95);
  const large = medianInterval(spread(201));
  assert.ok(
    large.high - large.low < small.high - small.low,
    `${JSON.stringify(large)} vs ${JSON.stringify(small)}`,
  );
});

it('medianInterval: every value equal gives a zero-width interval; a wider confidence gives a wider one; no values gives NaN bounds', () => {
  assert.deepStrictEqual(medianInterval([1.02, 1.02, 1.02]), {
    median: 1.02,
    low: 1.02,
    high: 1.02,
    confidence: 0.95,
  });
  const values = [0.9, 0.95, 1, 1.01, 1.02, 1.03, 1.05, 1.1, 1.2, 1.4, 0.7];
  const narrow = medianInterval(values, { confidence: 0.5 });
  const wide = medianInterval(values, { confidence: 0.99 });
  assert.ok(
    wide.low <= narrow.low && narrow.high <= wide.high,
    `${JSON.stringify(narrow)} within ${JSON.stringify(wide)}`,
  );
  const none = medianInterval([]);
  assert.ok(Number.isNaN(none.median) && Number.isNaN(none.low) && Number.isNaN(none.high));
});
