import { ControlPlaneError } from './control-plane-error.js';
import { parseGoDuration } from './parse-go-duration.js';

/**
 * KUBEBUILDER_CONTROLPLANE_START_TIMEOUT in ms: a Go duration as envtest reads it ("90s", "2m",
 * "1m30s"), or a plain number of seconds; undefined (the default) when unset, empty or zero, as
 * envtest keeps its default for a zero duration. Anything else is CONTROLPLANE_START_FAILED (not
 * silently the default).
 */
export function startTimeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env['KUBEBUILDER_CONTROLPLANE_START_TIMEOUT']?.trim();
  if (!raw) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : parseGoDuration(raw);
  if (ms === 0) return undefined;
  if (ms === undefined || !(ms > 0)) {
    throw new ControlPlaneError(
      'CONTROLPLANE_START_FAILED',
      `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=${JSON.stringify(raw.slice(0, 40))} is not a duration; give one as Go writes it (90s, 2m, 1m30s) or a number of seconds`,
    );
  }
  return ms;
}
