import { formatBytes, isConflict } from '../../kube/index.js';
import { readCapacityRange, type CapacityRange } from '../csi/capacity-range.js';
import { checkSupported, isShared, readCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc } from '../host/host-objects.js';
import type {
  ControllerExpandVolumeRequest,
  ControllerExpandVolumeResponse,
} from '../proto/csi-messages.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import type { ControllerDeps } from './controller-deps.js';
import { decideExpansion, type ExpansionDecision, type HostFacts } from './decide-expansion.js';
import { readExpandSetting } from './expand-setting.js';
import { HOST_ROUNDING_BYTES } from './plan-host-pvc.js';
import { storageClassNameOf } from './provisioners-to-judge.js';
import { retryRefusedSize } from './retry-refused-size.js';
import { waitUntilBound } from './wait-until-bound.js';
import { capacityBytesOf, hostResizeInfeasible } from './pvc-sizes.js';

/** How often a host PVC changed by someone else between the read and the write is read and decided again. */
const CONFLICT_ATTEMPTS = 3;

async function hostFacts(
  host: HostApi,
  pvc: HostPvc,
  volumeId: string,
  settingName: string,
): Promise<HostFacts> {
  const className = storageClassNameOf(pvc);
  const [usedBy, setting, storageClass] = await Promise.all([
    host.podsUsingPvc(volumeId),
    host.getSetting(settingName),
    className ? host.getStorageClass(className) : Promise.resolve(undefined),
  ]);
  return { usedBy, setting: readExpandSetting(setting), storageClass };
}

/** What a ControllerExpandVolume request asks for, once checked. */
interface ExpandRequest {
  volumeId: string;
  range: CapacityRange;
  /**
   * A mounted filesystem grows on the node (NodeExpandVolume); a block volume is the device
   * itself, and a shared volume's filesystem is the host's (the NFS share shows its new size).
   */
  nodeExpansionRequired: boolean;
}

/** Checks the request's volume id, capacity range and capability (INVALID_ARGUMENT otherwise). Pure. */
function readExpandRequest(request: ControllerExpandVolumeRequest): ExpandRequest {
  const volumeId = request.volume_id;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!request.capacity_range)
    throw new CsiError('CSI_INVALID_ARGUMENT', 'capacity_range is required');
  const range = readCapacityRange(request.capacity_range);
  if (range.requiredBytes === 0n)
    throw new CsiError('CSI_INVALID_ARGUMENT', 'capacity_range.required_bytes must be above 0');
  const capability = readCapability(request.volume_capability, 'volume_capability');
  if (capability) checkSupported(capability, 'volume_capability');
  return {
    volumeId,
    range,
    nodeExpansionRequired: capability?.accessType !== 'block' && !isShared(capability),
  };
}

/**
 * ControllerExpandVolume: grows the host PVC behind a guest volume and answers once the host
 * capacity covers the size asked for, following the PVC by watch (no polling interval). See
 * decideExpansion for what is judged; one call per volume at a time (ABORTED otherwise). A PVC
 * changed by someone else between the read and the write is read and decided again, up to
 * CONFLICT_ATTEMPTS times.
 */
export async function expandVolume(
  deps: ControllerDeps,
  request: ControllerExpandVolumeRequest,
  ctx: CallContext,
): Promise<ControllerExpandVolumeResponse> {
  const asked = readExpandRequest(request);
  const { volumeId, range } = asked;
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  const pvcKey = `${host.namespace}/${volumeId}`;
  const answered = (capacityBytes: bigint) => answer(capacityBytes, asked.nodeExpansionRequired);

  return deps.locks.run(volumeId, 'ControllerExpandVolume', async () => {
    for (let attempt = 1; ; attempt++) {
      const { pvc, decision } = await inspectAndDecide(deps, host, asked, pvcKey, ctx);
      switch (decision.action) {
        case 'done':
          return answered(decision.capacityBytes);
        case 'refuse':
          throw new CsiError(decision.code, decision.message);
        case 'lookup':
          throw new CsiError('CSI_VOLUME_NOT_FOUND', `host PVC ${pvcKey} does not exist`);
        case 'patch': {
          const raised = await raiseRequest(host, asked, pvcKey, pvc, decision.requestBytes, ctx);
          if ('conflict' in raised) {
            if (attempt < CONFLICT_ATTEMPTS) continue;
            throw new CsiError(
              'CSI_HOST_UNAVAILABLE',
              `host PVC ${pvcKey} kept changing while it was being grown; retry`,
              { cause: raised.conflict },
            );
          }
          return answered(
            await waitForCapacity(
              deps,
              host,
              volumeId,
              pvcKey,
              raised.written,
              range.requiredBytes,
              ctx,
            ),
          );
        }
        case 'wait':
          return answered(
            await waitForCapacity(deps, host, volumeId, pvcKey, pvc, range.requiredBytes, ctx),
          );
      }
    }
  });
}

/**
 * Reads the host PVC (waiting for a volume just created to be bound: CreateVolume does not wait
 * for that) and decides; when the decision needs them, reads the host facts and decides again.
 */
async function inspectAndDecide(
  deps: ControllerDeps,
  host: HostApi,
  { volumeId, range }: ExpandRequest,
  pvcKey: string,
  ctx: CallContext,
): Promise<{ pvc: HostPvc | undefined; decision: ExpansionDecision }> {
  let pvc = await host.getPvc(volumeId);
  if (pvc && !pvc.metadata?.deletionTimestamp && pvc.status?.phase !== 'Bound')
    pvc = await waitUntilBound(host, volumeId, pvc, ctx, deps.timeouts.expandMs);
  const decide = (facts: HostFacts | undefined): ExpansionDecision =>
    decideExpansion({
      pvcKey,
      pvc,
      requiredBytes: range.requiredBytes,
      limitBytes: range.limitBytes,
      roundingBytes: HOST_ROUNDING_BYTES,
      settingName: deps.settingName,
      host: facts,
    });
  const decision = decide(undefined);
  if (!pvc) return { pvc, decision };
  if (decision.action === 'refuse' && decision.code === 'CSI_HOST_RESIZE_INFEASIBLE') {
    // A size the host refused: asked again once an operator has validated the provider since.
    const facts = await hostFacts(host, pvc, volumeId, deps.settingName);
    const retry = retryRefusedSize({
      pvc,
      requiredBytes: range.requiredBytes,
      limitBytes: range.limitBytes,
      roundingBytes: HOST_ROUNDING_BYTES,
      host: facts,
    });
    return { pvc, decision: retry ?? decision };
  }
  if (decision.action !== 'lookup') return { pvc, decision };
  return { pvc, decision: decide(await hostFacts(host, pvc, volumeId, deps.settingName)) };
}

/**
 * Raises the host PVC's request to `requestBytes` (a write that carries the resourceVersion read):
 * the PVC as written, or the 409 Conflict when it changed since it was read.
 */
async function raiseRequest(
  host: HostApi,
  { volumeId }: ExpandRequest,
  pvcKey: string,
  pvc: HostPvc | undefined,
  requestBytes: bigint,
  ctx: CallContext,
): Promise<{ written: HostPvc } | { conflict: unknown }> {
  const storage = formatBytes(requestBytes);
  let written: HostPvc;
  try {
    written = await host.setPvcRequest(volumeId, storage, pvc?.metadata?.resourceVersion ?? '');
  } catch (error) {
    if (isConflict(error)) return { conflict: error };
    throw error;
  }
  ctx.log.info({ volumeId, hostPvc: pvcKey, request: storage }, 'raised the host PVC request');
  return { written };
}

/** The answer: the host PVC's capacity (at least the size asked for), as the host gave it. */
function answer(
  capacityBytes: bigint,
  nodeExpansionRequired: boolean,
): ControllerExpandVolumeResponse {
  return { capacity_bytes: String(capacityBytes), node_expansion_required: nodeExpansionRequired };
}

/** Resolves with the host PVC's capacity once it covers `requiredBytes` (see expandVolume). */
async function waitForCapacity(
  deps: ControllerDeps,
  host: HostApi,
  volumeId: string,
  pvcKey: string,
  start: HostPvc | undefined,
  requiredBytes: bigint,
  ctx: CallContext,
): Promise<bigint> {
  let pvc: HostPvc | undefined;
  const stalled = AbortSignal.timeout(deps.timeouts.stalledMs);
  try {
    pvc = await withWaitSignal(ctx, deps.timeouts.expandMs, (signal) =>
      host.waitForPvc(
        volumeId,
        (current) =>
          current === undefined ||
          (capacityBytesOf(current) ?? 0n) >= requiredBytes ||
          hostResizeInfeasible(current, requiredBytes) !== undefined,
        {
          signal: AbortSignal.any([signal, stalled]),
          start: { object: start, resourceVersion: start?.metadata?.resourceVersion },
        },
      ),
    );
  } catch (error) {
    if (error instanceof CsiError) throw error;
    const capacity = start?.status?.capacity?.['storage'] ?? 'unknown';
    if (stalled.aborted && !ctx.signal.aborted)
      throw new CsiError(
        'CSI_HOST_NOT_GROWING',
        `host PVC ${pvcKey} has not grown to ${formatBytes(requiredBytes)} in ${deps.timeouts.stalledMs / 1000} s (its capacity was ${capacity}) and carries no infeasible mark (a host before Kubernetes 1.32 writes none): check the host PVC's events (its resizer's VolumeResizeFailed) and its storage provider; the request stays written, the next call waits on, and lowering the guest PVC's request back to its capacity ends the growth`,
      );
    throw new CsiError(
      'CSI_HOST_TIMEOUT',
      `host PVC ${pvcKey} did not reach ${formatBytes(requiredBytes)} in time (its capacity was ${capacity}); the next call waits on without writing it again`,
    );
  }
  if (pvc === undefined)
    throw new CsiError('CSI_VOLUME_NOT_FOUND', `host PVC ${pvcKey} was deleted while it grew`);
  const capacity = capacityBytesOf(pvc) ?? 0n;
  if (capacity >= requiredBytes) return capacity;
  throw new CsiError(
    'CSI_HOST_RESIZE_INFEASIBLE',
    `the host cannot grow PVC ${pvcKey} (${hostResizeInfeasible(pvc, requiredBytes)}); lower the guest PVC's request back to its capacity`,
  );
}
