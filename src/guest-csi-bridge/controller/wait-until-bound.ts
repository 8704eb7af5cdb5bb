import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc } from '../host/host-objects.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';

/**
 * The host PVC once it is Bound, following it by watch for up to `ms` (a volume just created
 * waits for the host's binder; CreateVolume does not wait for it). CSI_VOLUME_NOT_FOUND when it
 * is gone or being deleted, CSI_HOST_PVC_NOT_BOUND when it is still not bound in time.
 */
export async function waitUntilBound(
  host: HostApi,
  volumeId: string,
  pvc: HostPvc | undefined,
  ctx: CallContext,
  ms: number,
): Promise<HostPvc> {
  const pvcKey = `${host.namespace}/${volumeId}`;
  const settled = (current: HostPvc | undefined): boolean =>
    current === undefined ||
    current.metadata?.deletionTimestamp !== undefined ||
    current.status?.phase === 'Bound';
  let current = pvc;
  if (!settled(current)) {
    try {
      current = await withWaitSignal(ctx, ms, (signal) =>
        host.waitForPvc(volumeId, settled, {
          signal,
          start: { object: pvc, resourceVersion: pvc?.metadata?.resourceVersion },
        }),
      );
    } catch (error) {
      if (error instanceof CsiError) throw error;
      throw new CsiError(
        'CSI_HOST_PVC_NOT_BOUND',
        `host PVC ${pvcKey} is ${pvc?.status?.phase ?? 'not bound'}, not Bound yet; retry once the host has bound it`,
      );
    }
  }
  if (current === undefined || current.metadata?.deletionTimestamp !== undefined)
    throw new CsiError(
      'CSI_VOLUME_NOT_FOUND',
      `host PVC ${pvcKey} ${current === undefined ? 'does not exist' : 'is being deleted'}`,
    );
  return current;
}
