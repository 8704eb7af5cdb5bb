import { execFile } from 'node:child_process';
import { GuestProbeError } from './guest-probe-error.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';

/** The connection of a local libvirtd's QEMU driver. */
export const LOCAL_LIBVIRT_URI = 'qemu:///system';

/** Ends a failed virsh call's message: its stderr's first lines, or how it ended. */
export function virshFailure(args: readonly string[], stderr: string, how: string): string {
  const said = stderr.trim().split('\n').slice(0, 3).join(' ').trim();
  return `virsh ${args[0] ?? ''} failed${said ? `: ${said}` : ` (${how})`}`;
}

/**
 * `virsh -c <uri> ...` as a local process (execFile, arguments as an array): the lab's transport
 * (`voe watch --guest-probe local`, the tests, `voe demo --vm`), against the libvirtd of this
 * machine, where the domains are named as KubeVirt names them.
 */
export function localVirsh(options: { uri?: string; command?: string } = {}): VirshTransport {
  const uri = options.uri ?? LOCAL_LIBVIRT_URI;
  const command = options.command ?? 'virsh';
  return {
    name: 'local',
    virsh: (_host: VirshHost, args: readonly string[], signal: AbortSignal) =>
      new Promise<string>((resolve, reject) => {
        execFile(
          command,
          ['-c', uri, ...args],
          { signal, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
          (error, stdout, stderr) => {
            if (!error) return resolve(stdout);
            if (signal.aborted)
              return reject(
                new GuestProbeError(
                  'PROBE_TIMEOUT',
                  `virsh ${args[0] ?? ''} did not answer in time`,
                  {
                    cause: error,
                  },
                ),
              );
            const code = (error as NodeJS.ErrnoException).code;
            reject(
              new GuestProbeError(
                'PROBE_VIRSH_FAILED',
                code === 'ENOENT'
                  ? `${command} is not installed here (libvirt-clients)`
                  : virshFailure(args, stderr, error.message),
                { cause: error },
              ),
            );
          },
        );
      }),
  };
}
