import { isShared, requireCapability, unsupportedReason } from '../csi/volume-capability.js';
import { isHostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type {
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
} from '../proto/csi-messages.js';
import type { ControllerDeps } from './controller-deps.js';
import { isShareablePvc } from './plan-share.js';

/** ValidateVolumeCapabilities: confirms the capabilities the driver serves for an existing volume, else says why not. */
export async function validateVolumeCapabilities(
  deps: ControllerDeps,
  request: ValidateVolumeCapabilitiesRequest,
): Promise<ValidateVolumeCapabilitiesResponse> {
  const volumeId = request.volume_id;
  if (!volumeId) throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_id is required');
  if (request.volume_capabilities.length === 0)
    throw new CsiError('CSI_INVALID_ARGUMENT', 'volume_capabilities are required');
  const capabilities = request.volume_capabilities.map((message, i) =>
    requireCapability(message, `volume_capabilities[${i}]`),
  );
  const host = deps.hosts.forSecrets(request.secrets);
  const pvc = isHostPvcName(volumeId) ? await host.getPvc(volumeId) : undefined;
  if (!pvc)
    throw new CsiError(
      'CSI_VOLUME_NOT_FOUND',
      `host PVC ${host.namespace}/${volumeId} does not exist`,
    );
  const reasons = capabilities
    .map(
      (capability) =>
        unsupportedReason(capability) ??
        (isShared(capability) && !isShareablePvc(pvc)
          ? `volume ${volumeId} is not a shared volume (its host PVC is not a bound Filesystem-mode ReadWriteMany PVC)`
          : undefined),
    )
    .filter((reason): reason is string => reason !== undefined);
  if (reasons.length > 0) return { confirmed: null, message: reasons.join('; ') };
  return {
    confirmed: {
      volume_context: request.volume_context ?? {},
      volume_capabilities: request.volume_capabilities,
      parameters: request.parameters ?? {},
    },
    message: '',
  };
}
