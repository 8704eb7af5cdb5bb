/**
 * mocha's spec reporter, which also writes the run's totals as JSON to the file named by
 * VOE_TEST_STATS_FILE once the run has ended: scripts/run-tests.mjs passes it with `--reporter` and
 * sums the totals of its mocha runs into its closing line. With --parallel it runs in mocha's main
 * process, on the events the workers report. Loaded by mocha with require() (an ES module without
 * top-level await, which Node >= 20.19 can require).
 */
import { writeFileSync } from 'node:fs';
import Mocha from 'mocha';

/** What the file holds: mocha's own counts. */
export interface RunStats {
  passes: number;
  failures: number;
  pending: number;
  tests: number;
}

export default class StatsReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const file = process.env['VOE_TEST_STATS_FILE'];
    if (!file) return;
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending, tests } = runner.stats ?? this.stats;
      const stats: RunStats = { passes, failures, pending, tests };
      writeFileSync(file, `${JSON.stringify(stats)}\n`);
    });
  }
}
