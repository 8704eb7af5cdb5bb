import { apiErrorOf, isConflict } from '../../kube/index.js';
import { isHostPvcName } from '../csi/host-pvc-name.js';
import { checkSupported, isShared, requireCapability } from '../csi/volume-capability.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import { hostFailure } from '../host/host-failure.js';
import type { HostVm } from '../host/host-objects.js';
import type {
  ControllerPublishVolumeRequest,
  ControllerUnpublishVolumeRequest,
} from '../proto/csi-messages.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import {
  attachmentOf,
  nodesHoldingElsewhere,
  vmiListsVolume,
  vmiShowsVolume,
} from './attachment-of.js';
import type { ControllerDeps } from './controller-deps.js';
import { hotplugModeOf } from './hotplug-mode-of.js';
import { waitForHostAttachment } from './wait-for-host-attachment.js';
import { publishShare, unpublishShare } from './publish-share.js';
import { waitUntilBound } from './wait-until-bound.js';
import {
  hotplugOperations,
  legacyAddVolumeBody,
  legacyRemoveVolumeBody,
  unplugOperations,
} from './hotplug-requests.js';

/** How often a VM changed between its read and the guarded patch is read and patched again. */
const PATCH_ATTEMPTS = 3;

/** A failed JSON Patch `test` (the VM changed since it was read): 422 from the API server, or 409. */
function staleVm(error: unknown): boolean {
  const api = apiErrorOf(error);
  return isConflict(error) || (api?.code === 422 && /test|resourceVersion/i.test(api.message));
}

/** Applies the guarded patch `operationsFor(vm)` (re-reading the VM when it changed meanwhile); false when the VM is gone. */
async function patchVmGuarded(
  host: HostApi,
  node: string,
  vm: HostVm,
  operationsFor: (vm: HostVm) => ReturnType<typeof hotplugOperations>,
  what: string,
): Promise<boolean> {
  let current: HostVm | undefined = vm;
  for (let attempt = 1; current; attempt++) {
    const operations = operationsFor(current);
    if (operations.length === 0) return true;
    try {
      await host.patchVm(node, operations);
      return true;
    } catch (error) {
      if (!staleVm(error) || attempt >= PATCH_ATTEMPTS)
        throw hostFailure(error, `${what} (VirtualMachine ${host.namespace}/${node})`);
    }
    current = await host.getVm(node);
  }
  return false;
}

/**
 * ControllerPublishVolume: FAILED_PRECONDITION when another guest node's VM or VMI holds the
 * volume (every mode served is single-node); waits while a Block volume's host VolumeAttachment
 * is on another host node than the VMI's (a live migration in progress; ABORTED when it lasts);
 * else hotplugs the host PVC into the guest node's VM
 * (node_id = its name)
 * on the SCSI bus, declaratively (the VM's spec) or through KubeVirt's legacy addvolume
 * subresource, by the host's Harvester version; answers once the VMI shows the volume
 * hotplugged, or ABORTED when that takes longer than the hotplug timeout (the attacher retries).
 */
export async function publishVolume(
  deps: ControllerDeps,
  request: ControllerPublishVolumeRequest,
  ctx: CallContext,
): Promise<{ publish_context: Record<string, string> }> {
  const volumeId = request.volume_id;
  const node = request.node_id;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!node) throw new CsiError('CSI_INVALID_ARGUMENT', 'node_id is required');
  const capability = requireCapability(request.volume_capability, 'volume_capability');
  checkSupported(capability, 'volume_capability');
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  // A shared (RWX) volume is an NFS share: nothing to hotplug.
  if (isShared(capability)) return publishShare(deps, host, volumeId, node, ctx);
  const pvcKey = `${host.namespace}/${volumeId}`;
  return deps.locks.run(volumeId, 'ControllerPublishVolume', async () => {
    const [pvc, vm] = await Promise.all([
      isHostPvcName(volumeId) ? host.getPvc(volumeId) : Promise.resolve(undefined),
      host.getVm(node),
    ]);
    if (!pvc || pvc.metadata?.deletionTimestamp)
      throw new CsiError('CSI_VOLUME_NOT_FOUND', `host PVC ${pvcKey} does not exist`);
    if (!vm)
      throw new CsiError(
        'CSI_NODE_NOT_FOUND',
        `guest node ${node} has no VirtualMachine ${host.namespace}/${node} on the host`,
      );
    // Every access mode served is single-node; the host PVC is RWX (for live migration), so
    // KubeVirt would plug it into a second VM.
    const [vms, vmis] = await Promise.all([host.listVms(), host.listVmis()]);
    const elsewhere = nodesHoldingElsewhere(vms, vmis, volumeId, node);
    if (elsewhere.length > 0)
      throw new CsiError(
        'CSI_VOLUME_PUBLISHED_ELSEWHERE',
        `volume ${volumeId} is a single-node volume and is plugged into ${elsewhere.join(', ')}; it can be published to ${node} once it is unpublished there`,
      );
    const bound = await waitUntilBound(host, volumeId, pvc, ctx, deps.timeouts.hotplugMs);
    await waitForHostAttachment(host, volumeId, node, bound, ctx, deps.timeouts.attachmentMs);
    const vmi = await host.getVmi(node);
    const attachment = attachmentOf(vm, vmi, volumeId);
    if (attachment === 'attached') return { publish_context: {} };
    if (attachment === 'detaching')
      throw new CsiError(
        'CSI_HOTPLUG_PENDING',
        `volume ${volumeId} is still being unplugged from ${node}; retry once it is gone`,
      );
    if (attachment === 'detached') {
      const mode = await hotplugModeOf(host, ctx.log);
      if (mode === 'declarative') {
        await patchVmGuarded(
          host,
          node,
          vm,
          (current) => hotplugOperations(current, volumeId),
          'hotplugging',
        );
      } else {
        await host.addVolumeLegacy(node, legacyAddVolumeBody(volumeId));
      }
      ctx.log.info({ volumeId, node, mode }, 'hotplugging the host PVC into the guest node VM');
    }
    try {
      await withWaitSignal(ctx, deps.timeouts.hotplugMs, (signal) =>
        host.waitForVmi(node, (current) => vmiShowsVolume(current, volumeId), {
          signal,
          start: { object: vmi, resourceVersion: vmi?.metadata?.resourceVersion },
        }),
      );
    } catch (error) {
      if (error instanceof CsiError) throw error;
      throw new CsiError(
        'CSI_HOTPLUG_PENDING',
        `volume ${volumeId} is not hotplugged into ${node} yet (VirtualMachineInstance ${host.namespace}/${node} does not show it); retry`,
      );
    }
    return { publish_context: {} };
  });
}

/**
 * ControllerUnpublishVolume: unplugs the volume from the guest node's VM (from every VM or VMI of
 * the host namespace that lists it when node_id is empty): from the VM's spec when the VM lists
 * it, else, when only the VMI still lists it, from the VMI (its removevolume subresource);
 * success when it is not plugged (a VM or volume that does not exist included), ABORTED while the
 * VMI still shows it after the unplug timeout.
 */
export async function unpublishVolume(
  deps: ControllerDeps,
  request: ControllerUnpublishVolumeRequest,
  ctx: CallContext,
): Promise<Record<string, never>> {
  const volumeId = request.volume_id;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (!isHostPvcName(volumeId)) return {};
  const host = deps.hosts.forSecrets(request.secrets, ctx.signal);
  if (await unpublishShare(deps, host, volumeId, request.node_id, ctx)) return {};
  return deps.locks.run(volumeId, 'ControllerUnpublishVolume', async () => {
    const nodes = request.node_id
      ? [request.node_id]
      : nodesHoldingElsewhere(
          ...(await Promise.all([host.listVms(), host.listVmis()])),
          volumeId,
          '',
        );
    let mode: Awaited<ReturnType<typeof hotplugModeOf>> | undefined;
    for (const node of nodes) {
      const [vm, vmi] = await Promise.all([host.getVm(node), host.getVmi(node)]);
      const attachment = attachmentOf(vm, vmi, volumeId);
      if (attachment === 'detached') continue;
      if (vm && (attachment === 'attached' || attachment === 'attaching')) {
        mode ??= await hotplugModeOf(host, ctx.log);
        if (mode === 'declarative') {
          await patchVmGuarded(
            host,
            node,
            vm,
            (current) => unplugOperations(current, volumeId),
            'unplugging',
          );
        } else {
          await host
            .removeVolumeLegacy(node, legacyRemoveVolumeBody(volumeId))
            .catch((error: unknown) => {
              // Already gone from the VM (a retry): nothing to remove.
              if (error instanceof CsiError && error.details['httpStatus'] === 404) return;
              throw error;
            });
        }
        ctx.log.info({ volumeId, node, mode }, 'unplugging the host PVC from the guest node VM');
      } else if (attachment === 'detaching' && vmi) {
        // Only the instance lists it (e.g. plugged into the VMI alone): unplug it there.
        await host
          .removeVolumeFromVmi(node, legacyRemoveVolumeBody(volumeId))
          .catch((error: unknown) => {
            // 409: KubeVirt's answer for a volume the instance no longer has (done); 404: no
            // such instance. Either way, what is left is the wait below.
            const status = error instanceof CsiError ? error.details['httpStatus'] : undefined;
            if (status === 409 || status === 404) return;
            throw error;
          });
        ctx.log.info({ volumeId, node }, 'unplugging the host PVC from the guest node VMI');
      }
      try {
        await withWaitSignal(ctx, deps.timeouts.unplugMs, (signal) =>
          host.waitForVmi(node, (current) => !vmiListsVolume(current, volumeId), {
            signal,
            start: { object: vmi, resourceVersion: vmi?.metadata?.resourceVersion },
          }),
        );
      } catch (error) {
        if (error instanceof CsiError) throw error;
        throw new CsiError(
          'CSI_HOTPLUG_PENDING',
          `volume ${volumeId} is still being unplugged from ${node} (VirtualMachineInstance ${host.namespace}/${node} still lists it); retry`,
        );
      }
    }
    return {};
  });
}
