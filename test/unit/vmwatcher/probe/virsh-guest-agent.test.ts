/**
 * virshGuestAgent over a scripted virsh: the guest-exec request (path, arg[], input-data in
 * base64, capture-output), guest-exec-status until exited, the output decoded with its truncated
 * flags, a timeout, a refused guest-exec.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { GuestProbeError } from '../../../../src/vmwatcher/probe/guest-probe-error.js';
import { virshGuestAgent } from '../../../../src/vmwatcher/probe/virsh-guest-agent.js';
import type { VirshHost, VirshTransport } from '../../../../src/vmwatcher/probe/virsh-transport.js';

const HOST: VirshHost = { namespace: 'lab', launcherPod: 'virt-launcher-vm1-abcde' };

/** A virsh answering guest-exec with pid 7, then each guest-exec-status from `statuses` in turn (the last repeated). */
function scripted(statuses: object[], options: { refuse?: boolean; hang?: boolean } = {}) {
  const calls: string[][] = [];
  const transport: VirshTransport = {
    name: 'scripted',
    async virsh(_host, args, signal) {
      calls.push([...args]);
      const request = JSON.parse(args.at(-1)!) as { execute: string };
      if (request.execute === 'guest-exec') {
        if (options.refuse)
          throw new GuestProbeError(
            'PROBE_VIRSH_FAILED',
            "virsh qemu-agent-command failed: error: internal error: unable to execute QEMU agent command 'guest-exec': Command guest-exec has been disabled",
          );
        return '{"return":{"pid":7}}';
      }
      if (options.hang)
        await new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () =>
            reject(
              new GuestProbeError(
                'PROBE_TIMEOUT',
                'virsh qemu-agent-command did not answer in time',
              ),
            ),
          ),
        );
      const status = statuses[Math.min(calls.length - 2, statuses.length - 1)]!;
      return JSON.stringify({ return: status });
    },
  };
  return { transport, calls };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('virshGuestAgent', () => {
  it('sends the argv and standard input to guest-exec, polls guest-exec-status until exited', async () => {
    const { transport, calls } = scripted([
      { exited: false },
      {
        exited: true,
        exitcode: 0,
        'out-data': b64('The partition table has been altered.\n'),
        'err-data': b64(''),
      },
    ]);
    const agent = virshGuestAgent(transport, HOST, 'lab_vm1', { pollMs: 1 });
    const result = await agent.exec({
      argv: ['sfdisk', '--no-reread', '-N', '1', '/dev/vdb'],
      stdin: ', +\n',
      timeoutMs: 30_000,
    });
    assert.deepStrictEqual(result, {
      exitCode: 0,
      signal: undefined,
      stdout: 'The partition table has been altered.\n',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      timedOut: false,
    });
    assert.deepStrictEqual(calls[0]!.slice(0, 4), [
      'qemu-agent-command',
      '--timeout',
      '30',
      'lab_vm1',
    ]);
    assert.deepStrictEqual(JSON.parse(calls[0]![4]!), {
      execute: 'guest-exec',
      arguments: {
        path: 'sfdisk',
        arg: ['--no-reread', '-N', '1', '/dev/vdb'],
        'input-data': b64(', +\n'),
        'capture-output': true,
      },
    });
    assert.deepStrictEqual(JSON.parse(calls[1]![4]!), {
      execute: 'guest-exec-status',
      arguments: { pid: 7 },
    });
    assert.lengthOf(calls, 3);
  });

  it('passes on an exit code, a signal and the truncated flags', async () => {
    const { transport } = scripted([
      {
        exited: true,
        signal: 9,
        'out-data': b64('x'),
        'out-truncated': true,
        'err-truncated': true,
      },
    ]);
    const result = await virshGuestAgent(transport, HOST, 'lab_vm1').exec({
      argv: ['lsblk'],
      timeoutMs: 5_000,
    });
    assert.deepInclude(result, {
      exitCode: undefined,
      signal: 9,
      stdoutTruncated: true,
      stderrTruncated: true,
      timedOut: false,
    });
  });

  it('reports a command still running when its timeout runs out', async () => {
    const { transport } = scripted([{ exited: false }]);
    const result = await virshGuestAgent(transport, HOST, 'lab_vm1', { pollMs: 5 }).exec({
      argv: ['resize2fs', '/dev/vdb1'],
      timeoutMs: 60,
    });
    assert.isTrue(result.timedOut);
    assert.isUndefined(result.exitCode);
  });

  it('reports a virsh call cut short by the timeout as timed out', async () => {
    const { transport } = scripted([], { hang: true });
    const result = await virshGuestAgent(transport, HOST, 'lab_vm1').exec({
      argv: ['lsblk'],
      timeoutMs: 40,
    });
    assert.isTrue(result.timedOut);
  });

  it('rejects with PROBE_GUEST_EXEC_REFUSED when the agent refuses guest-exec', async () => {
    const { transport } = scripted([], { refuse: true });
    const error = await virshGuestAgent(transport, HOST, 'lab_vm1')
      .exec({ argv: ['lsblk'], timeoutMs: 5_000 })
      .then(
        () => undefined,
        (e: GuestProbeError) => e,
      );
    assert.strictEqual(error?.code, 'PROBE_GUEST_EXEC_REFUSED');
  });
});
