import type { Logger } from '../../log/index.js';
import type { HostApi } from '../host/host-api.js';
import { reachabilityLogLine } from './reachability-log-line.js';

/** How often the host API is probed, and how long one probe may take. */
export const HOST_PROBE_INTERVAL_MS = 30_000;
export const HOST_PROBE_TIMEOUT_MS = 5_000;

export interface HostReachability {
  /** Whether the last probe found the host API answering; undefined before the first. */
  current(): boolean | undefined;
  /** Stops probing (a probe under way is cancelled). */
  stop(): void;
}

/**
 * Probes the host API (`GET /version`) at once and then every `intervalMs`, each within
 * `timeoutMs`, and logs its finding the first time and each time it changes. It never touches
 * Probe: the livenessprobe sidecar restarts a driver whose Probe fails, and a slow host is no
 * reason to restart it (docs/csi.md "Identity"); the finding is a metric instead.
 */
export function followHostReachability(
  host: HostApi,
  log: Logger,
  options: { intervalMs?: number; timeoutMs?: number } = {},
): HostReachability {
  const intervalMs = options.intervalMs ?? HOST_PROBE_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? HOST_PROBE_TIMEOUT_MS;
  const stopped = new AbortController();
  let reachable: boolean | undefined;
  let timer: NodeJS.Timeout | undefined;
  const record = (now: boolean, error?: unknown): void => {
    const line = reachabilityLogLine(reachable, now);
    reachable = now;
    if (!line) return;
    const fields =
      error === undefined
        ? { namespace: host.namespace }
        : { err: error instanceof Error ? error.message : String(error) };
    log[line.level](fields, line.msg);
  };
  const probeOnce = (): void => {
    host
      .probe(AbortSignal.any([stopped.signal, AbortSignal.timeout(timeoutMs)]))
      .then(
        () => record(true),
        (error: unknown) => {
          if (!stopped.signal.aborted) record(false, error);
        },
      )
      .finally(() => {
        if (stopped.signal.aborted) return;
        timer = setTimeout(probeOnce, intervalMs);
        timer.unref();
      });
  };
  probeOnce();
  return {
    current: () => reachable,
    stop() {
      stopped.abort();
      clearTimeout(timer);
    },
  };
}
