import { describe, it } from 'mocha';
import { assert } from 'chai';
import { createCsiMetrics } from '../../../src/guest-csi-bridge/health/csi-metrics.js';
import { followHostReachability } from '../../../src/guest-csi-bridge/health/follow-host-reachability.js';
import { reachabilityLogLine } from '../../../src/guest-csi-bridge/health/reachability-log-line.js';
import { serveCsiMetrics } from '../../../src/guest-csi-bridge/health/serve-csi-metrics.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';

describe('reachabilityLogLine', () => {
  const table: Array<[boolean | undefined, boolean, string | undefined]> = [
    [undefined, true, 'info: the host API answers'],
    [undefined, false, 'warn: the host API does not answer yet'],
    [true, true, undefined],
    [false, false, undefined],
    [true, false, 'warn: the host API stopped answering'],
    [false, true, 'info: the host API answers'],
  ];
  for (const [previous, now, expected] of table)
    it(`${String(previous)} -> ${String(now)}: ${expected ?? 'nothing'}`, () => {
      const line = reachabilityLogLine(previous, now);
      assert.strictEqual(line && `${line.level}: ${line.msg.split(';')[0]}`, expected);
    });
});

/** A host whose API answers while `answers.value` is true. */
function hostAnswering(answers: { value: boolean; probes: number }): HostApi {
  return {
    namespace: 'guests',
    probe: async () => {
      answers.probes++;
      if (!answers.value) throw new Error('connect ECONNREFUSED');
    },
  } as unknown as HostApi;
}

describe('followHostReachability and voe_csi_host_reachable', () => {
  it('follows the host API as it answers, stops answering and answers again; logs each change once; the gauge follows', async () => {
    const answers = { value: false, probes: 0 };
    const logs = captureLogger('info');
    const reachability = followHostReachability(hostAnswering(answers), logs.logger, {
      intervalMs: 10,
    });
    const registry = createCsiMetrics(reachability);
    const gauge = async (): Promise<string | undefined> =>
      /^voe_csi_host_reachable (\d)$/m.exec(await registry.metrics())?.[1];
    try {
      await eventually(async () => reachability.current() === false, 2_000, 'not answering');
      assert.strictEqual(await gauge(), '0');
      answers.value = true;
      await eventually(async () => reachability.current() === true, 2_000, 'answering');
      assert.strictEqual(await gauge(), '1');
      const probes = answers.probes;
      await eventually(async () => answers.probes >= probes + 3, 2_000, 'probed again');
      answers.value = false;
      await eventually(async () => reachability.current() === false, 2_000, 'stopped answering');
      assert.strictEqual(await gauge(), '0');
    } finally {
      reachability.stop();
    }
    assert.deepStrictEqual(
      logs.lines().map((line) => String(line['msg']).split(';')[0]),
      [
        'the host API does not answer yet',
        'the host API answers',
        'the host API stopped answering',
      ],
    );
  });

  it('stop() ends the probing', async () => {
    const answers = { value: true, probes: 0 };
    const reachability = followHostReachability(hostAnswering(answers), captureLogger().logger, {
      intervalMs: 10,
    });
    await eventually(async () => answers.probes >= 2, 2_000, 'probing');
    reachability.stop();
    const probes = answers.probes;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.isAtMost(answers.probes, probes + 1);
  });

  it('a driver without host credentials has no voe_csi_host_reachable', async () => {
    assert.notMatch(await createCsiMetrics(undefined).metrics(), /voe_csi_host_reachable/);
  });

  it('serves /metrics; a port in use is CSI_METRICS_LISTEN_FAILED', async () => {
    const first = await serveCsiMetrics(createCsiMetrics(undefined), '127.0.0.1', 0);
    try {
      const answer = await fetch(`${first.url}/metrics`);
      assert.strictEqual(answer.status, 200);
      assert.match(await answer.text(), /^process_cpu_seconds_total /m);
      assert.strictEqual((await fetch(`${first.url}/other`)).status, 404);
      const port = Number(new URL(first.url).port);
      const refused = await serveCsiMetrics(createCsiMetrics(undefined), '127.0.0.1', port).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.isTrue(isCsiError(refused, 'CSI_METRICS_LISTEN_FAILED'), String(refused));
    } finally {
      await first.stop();
    }
  });
});
