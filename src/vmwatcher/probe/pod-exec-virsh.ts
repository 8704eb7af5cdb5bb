import { Writable } from 'node:stream';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
// The module alone: the package's index loads its generated models.
import { Exec } from '@kubernetes/client-node/dist/exec.js';
import type { KubeClientConfig } from '../../kube/index.js';
import { GUEST_PROBE_ANNOTATION } from '../../model/voe-annotations.js';
import { execExitCode } from './exec-exit-code.js';
import { GuestProbeError } from './guest-probe-error.js';
import { virshFailure } from './local-virsh.js';
import { COMPUTE_CONTAINER, launcherLibvirtUri } from './launcher-libvirt-uri.js';
import { upgradeRefusalStatus } from './upgrade-refusal-status.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';

export { COMPUTE_CONTAINER };

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

/**
 * The error for a pods/exec the API server did not open: PROBE_EXEC_FORBIDDEN when RBAC refused it
 * (403; the chart grants pods/exec only in the namespaces tracker.guestProbeNamespaces lists),
 * PROBE_VIRSH_FAILED otherwise.
 */
function upgradeFailure(error: unknown, namespace: string, where: string): GuestProbeError {
  const message = (error as Error).message ?? String(error);
  if (upgradeRefusalStatus(message) === 403)
    return new GuestProbeError(
      'PROBE_EXEC_FORBIDDEN',
      `pods/exec into ${where} refused (403 Forbidden): voe's ServiceAccount may not exec in namespace ${namespace}; ` +
        `add ${namespace} to the chart value tracker.guestProbeNamespaces (with tracker.guestProbe pods-exec), ` +
        `or opt the VM out with the annotation ${GUEST_PROBE_ANNOTATION}: "off"`,
      { cause: error, details: { namespace, chartValue: 'tracker.guestProbeNamespaces' } },
    );
  return new GuestProbeError('PROBE_VIRSH_FAILED', `pods/exec into ${where} failed: ${message}`, {
    cause: error,
  });
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
    const onStatus = (status: V1Status): void => {
      if (status.status === 'Success') return finish(undefined);
      const exitCode = execExitCode(status);
      finish(
        new GuestProbeError(
          'PROBE_VIRSH_FAILED',
          `${virshFailure(args, stderr.text(), status.message ?? 'no status message')} in ${where}${exitCode === undefined ? '' : ` (exit code ${exitCode})`}`,
          { details: { exitCode, stderr: stderr.text() } },
        ),
      );
    };
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
        (error: unknown) => finish(upgradeFailure(error, host.namespace, where)),
      );
  });
}

/**
 * The argv run in the launcher's compute container: virsh, `-c` with the launcher's libvirt URI
 * (`uri` when given, else chosen from the user the pod runs as: launcherLibvirtUri), then `args`.
 * Pure.
 */
export function launcherVirshArgv(
  host: VirshHost,
  args: readonly string[],
  uri: string | undefined,
): string[] {
  return ['virsh', '-c', uri ?? launcherLibvirtUri(host.launcherUser), ...args];
}

/**
 * `virsh ...` through pods/exec in the virt-launcher pod's `compute` container (production;
 * @kubernetes/client-node's Exec, the command as an array, launcherVirshArgv). Needs RBAC `get`
 * and `create` on `pods/exec` in the VMs' namespaces (a WebSocket exec is a GET, authorized as
 * `get` before Kubernetes 1.35). Rejects with PROBE_EXEC_FORBIDDEN (naming the namespace and the
 * chart value) when RBAC refuses the exec, with PROBE_VIRSH_FAILED and `details.exitCode` and
 * `details.stderr` when virsh exits non-zero.
 */
export function podExecVirsh(
  kubeConfig: KubeClientConfig,
  options: { uri?: string; container?: string } = {},
): VirshTransport {
  // Its WebSocketHandler reads only getCurrentCluster and applyToHTTPSOptions of the kubeconfig
  // (web-socket-handler.js connect), which every KubeClientConfig has.
  const exec = new Exec(kubeConfig as KubeConfig);
  const container = options.container ?? COMPUTE_CONTAINER;
  return {
    name: 'pods/exec',
    virsh: async (host: VirshHost, args: readonly string[], signal: AbortSignal) => {
      if (!host.launcherPod)
        throw new GuestProbeError(
          'PROBE_VIRSH_FAILED',
          `no running virt-launcher pod holds the domain in ${host.namespace}`,
        );
      const command = launcherVirshArgv(host, args, options.uri);
      return execOnce(exec, host, container, command, args, signal);
    },
  };
}
