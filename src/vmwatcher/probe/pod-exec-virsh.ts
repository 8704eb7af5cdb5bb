import { Writable } from 'node:stream';
import { Exec, type KubeConfig, type V1Status } from '@kubernetes/client-node';
import { GuestProbeError } from './guest-probe-error.js';
import { virshFailure } from './local-virsh.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';

/** The virt-launcher container where libvirt runs the domain (kubevirt.md "Pods"). */
export const COMPUTE_CONTAINER = 'compute';

/** A Writable that keeps what is written, up to `limit` bytes. */
function collector(limit: number): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (size < limit) {
        chunks.push(chunk);
        size += chunk.length;
      }
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** One exec of `command` (virsh and `args`) in `container` of the host's launcher pod: its stdout, or a GuestProbeError. */
function execOnce(
  exec: Exec,
  host: VirshHost,
  container: string,
  command: string[],
  args: readonly string[],
  signal: AbortSignal,
): Promise<string> {
  const stdout = collector(4 * 1024 * 1024);
  const stderr = collector(64 * 1024);
  const where = `${host.namespace}/${host.launcherPod} (${container})`;
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    let socket: { close(): void } | undefined;
    const finish = (error: Error | undefined): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket?.close();
      if (error) reject(error);
      else resolve(stdout.text());
    };
    const onAbort = (): void =>
      finish(
        new GuestProbeError(
          'PROBE_TIMEOUT',
          `virsh ${args[0] ?? ''} in ${where} did not answer in time`,
        ),
      );
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    const onStatus = (status: V1Status): void =>
      finish(
        status.status === 'Success'
          ? undefined
          : new GuestProbeError(
              'PROBE_VIRSH_FAILED',
              `${virshFailure(args, stderr.text(), status.message ?? 'no status message')} in ${where}`,
            ),
      );
    exec
      .exec(
        host.namespace,
        host.launcherPod!,
        container,
        command,
        stdout.stream,
        stderr.stream,
        null,
        false,
        onStatus,
      )
      .then(
        (ws) => {
          socket = ws;
          if (settled) ws.close();
        },
        (error: unknown) =>
          finish(
            new GuestProbeError(
              'PROBE_VIRSH_FAILED',
              `pods/exec into ${where} failed: ${(error as Error).message ?? String(error)}`,
              { cause: error },
            ),
          ),
      );
  });
}

/**
 * `virsh ...` through pods/exec in the virt-launcher pod's `compute` container (production;
 * @kubernetes/client-node's Exec, the command as an array). virsh there reaches the pod's own
 * libvirt by its default connection; `uri` passes `-c` when the image needs one. Needs RBAC
 * `create` on `pods/exec` in the VMs' namespaces.
 */
export function podExecVirsh(
  kubeConfig: KubeConfig,
  options: { uri?: string; container?: string } = {},
): VirshTransport {
  const exec = new Exec(kubeConfig);
  const container = options.container ?? COMPUTE_CONTAINER;
  return {
    name: 'pods/exec',
    virsh: async (host: VirshHost, args: readonly string[], signal: AbortSignal) => {
      if (!host.launcherPod)
        throw new GuestProbeError(
          'PROBE_VIRSH_FAILED',
          `no running virt-launcher pod holds the domain in ${host.namespace}`,
        );
      const command = ['virsh', ...(options.uri ? ['-c', options.uri] : []), ...args];
      return execOnce(exec, host, container, command, args, signal);
    },
  };
}
