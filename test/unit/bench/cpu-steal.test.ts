import { it } from 'mocha';
import { assert } from 'chai';
import { percent, readCpuTimes, stealShare } from '../../../bench/support/cpu-steal.js';

it('stealShare is the stolen part of all CPU time between two readings; no time passed is 0', () => {
  assert.strictEqual(stealShare({ steal: 10, total: 1000 }, { steal: 30, total: 1200 }), 0.1);
  assert.strictEqual(stealShare({ steal: 10, total: 1000 }, { steal: 10, total: 1000 }), 0);
  assert.strictEqual(percent(0.1234), '12.3 %');
});

it("readCpuTimes reads the machine's counters from /proc/stat: steal is part of the total, and both only grow", async () => {
  const first = await readCpuTimes();
  assert.ok(
    first.total > 0 && first.steal >= 0 && first.steal <= first.total,
    JSON.stringify(first),
  );
  const later = await readCpuTimes();
  assert.ok(later.total >= first.total && later.steal >= first.steal);
});
