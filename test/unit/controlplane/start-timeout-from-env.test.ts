import { it } from 'mocha';
import { assert } from 'chai';
import { expectThrow } from '../../support/expect-error.js';
import { ControlPlaneError } from '../../../src/controlplane/index.js';
import { startTimeoutFromEnv } from '../../../src/controlplane/start-timeout-from-env.js';
import { parseGoDuration } from '../../../src/controlplane/parse-go-duration.js';

it('parseGoDuration reads durations as Go time.ParseDuration does', () => {
  const cases: Array<[string, number | undefined]> = [
    ['90s', 90_000],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['1h2m3s4ms', 3_723_004],
    ['.5s', 500],
    ['2000us', 2],
    ['0', 0],
    ['+1s', 1000],
    ['', undefined],
    ['90', undefined],
    ['abc', undefined],
    ['1x', undefined],
    ['s', undefined],
    ['1m 30s', undefined],
    ['-5s', undefined],
    ['5s!', undefined],
  ];
  for (const [text, ms] of cases) assert.strictEqual(parseGoDuration(text), ms, text);
});

it('KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: a Go duration or a number of seconds; unset, empty or zero is the default; anything else is refused', () => {
  const of = (value?: string) =>
    startTimeoutFromEnv(
      value === undefined ? {} : { KUBEBUILDER_CONTROLPLANE_START_TIMEOUT: value },
    );
  assert.isUndefined(of());
  assert.isUndefined(of(''));
  assert.strictEqual(of('90s'), 90_000);
  assert.strictEqual(of('2m'), 120_000, 'minutes, not 2 s');
  assert.strictEqual(of('1m30s'), 90_000);
  assert.strictEqual(of('500ms'), 500, 'milliseconds, not 500 s');
  assert.strictEqual(of('120'), 120_000);
  assert.isUndefined(of('0'), 'zero keeps the default, as envtest does');
  assert.isUndefined(of('0s'));
  for (const bad of ['abc', '-5s', '2 minutes', '5x']) {
    expectThrow(
      () => of(bad),
      (error: unknown) =>
        error instanceof ControlPlaneError &&
        error.code === 'CONTROLPLANE_START_FAILED' &&
        error.message.startsWith(
          `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=${JSON.stringify(bad)} is not a duration`,
        ),
      bad,
    );
  }
});
