import type { V1Status } from '@kubernetes/client-node';

/**
 * The exit code a pods/exec Status reports: the `ExitCode` cause of a `NonZeroExitCode` Status,
 * as the kubelet's streaming server writes it when the command exited non-zero (k8s.io/kubelet
 * pkg/cri/streaming/remotecommand/exec.go ServeExec: reason NonZeroExitCode, one cause of type
 * ExitCode whose message is the code in decimal). undefined for any other Status (Success, an
 * InternalError when the command could not be started). Pure.
 */
export function execExitCode(status: V1Status): number | undefined {
  if (status.reason !== 'NonZeroExitCode') return undefined;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  if (cause?.message === undefined || !/^-?\d+$/.test(cause.message)) return undefined;
  return Number(cause.message);
}
