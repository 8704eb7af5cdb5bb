import { describe, it } from 'mocha';
import { assert } from 'chai';
import { GuestProbeError } from '../../../../src/vmwatcher/probe/guest-probe-error.js';
import {
  isGuestExecRefused,
  parseDomblkinfo,
  parseExecPid,
  parseExecStatus,
} from '../../../../src/vmwatcher/probe/virsh-output.js';
import { expectThrow } from '../../../support/expect-error.js';

describe('virsh output', () => {
  it('reads domblkinfo in bytes', () => {
    const info = parseDomblkinfo(
      'Capacity:       21474836480\nAllocation:     4096\nPhysical:       21474836480\n\n',
    );
    assert.deepStrictEqual(info, {
      capacity: 21474836480n,
      allocation: 4096n,
      physical: 21474836480n,
    });
  });

  it('refuses domblkinfo output without a Capacity line', () => {
    expectThrow(
      () => parseDomblkinfo('error: failed to get domain'),
      (error: GuestProbeError) => error.code === 'PROBE_OUTPUT_UNREADABLE',
    );
  });

  it("reads guest-exec's pid and guest-exec-status's decoded output", () => {
    assert.strictEqual(parseExecPid('{"return":{"pid":1043}}\n'), 1043);
    const status = parseExecStatus(
      JSON.stringify({
        return: {
          exited: true,
          exitcode: 0,
          'out-data': Buffer.from('vda\t41943040\tvoe-1\t/sys/x/virtio2\n').toString('base64'),
        },
      }),
    );
    assert.deepStrictEqual(status, {
      exited: true,
      exitCode: 0,
      signal: undefined,
      stdout: 'vda\t41943040\tvoe-1\t/sys/x/virtio2\n',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
    });
    const cut = parseExecStatus(
      '{"return":{"exited":true,"signal":9,"out-data":"","out-truncated":true,"err-truncated":true}}',
    );
    assert.deepInclude(cut, {
      exitCode: undefined,
      signal: 9,
      stdoutTruncated: true,
      stderrTruncated: true,
    });
    assert.isFalse(parseExecStatus('{"return":{"exited":false}}').exited);
  });

  it("refuses answers that are not the agent's", () => {
    for (const text of ['', 'not json', '{"error":{"class":"GenericError"}}', '{"return":{}}'])
      expectThrow(
        () => parseExecPid(text),
        (error: GuestProbeError) => error.code === 'PROBE_OUTPUT_UNREADABLE',
        text,
      );
  });

  it('tells a refused guest-exec from other failures', () => {
    assert.isTrue(
      isGuestExecRefused(
        "error: internal error: unable to execute QEMU agent command 'guest-exec': Command guest-exec has been disabled",
      ),
    );
    assert.isTrue(
      isGuestExecRefused(
        "error: internal error: unable to execute QEMU agent command 'guest-exec': The command guest-exec has been disabled for this instance",
      ),
    );
    assert.isFalse(
      isGuestExecRefused('error: Guest agent is not responding: QEMU guest agent is not connected'),
    );
    assert.isFalse(isGuestExecRefused("error: failed to get domain 'ns_vm'"));
  });
});
