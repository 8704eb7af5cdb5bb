import type { AdmissionOptions } from '../admission-options.js';
import { assembleResizeSnapshot } from '../assemble-resize-snapshot.js';
import { isKubeError, KubeErrorCode } from '../../kube/index.js';
import { decideResize, outOfRangeDecision, storageGrows } from '../decide-resize.js';
import type { PersistentVolumeClaim } from '../../model/index.js';
import type { ResizeSnapshotSource } from '../resize-snapshot-source.js';
import { notSyncedVerdict } from './not-synced-verdict.js';
import { allowedVerdict, internalErrorVerdict, toVerdict } from './to-verdict.js';
import type { AdmissionRequest, AdmissionVerdict, Validator } from './validator.js';
import { Decision } from '../decision.js';

export const PVC_RESIZE_PATH = '/validate/pvc-resize';

/**
 * Judges PVC updates that ask the volume to grow (storageGrows: a larger storage request, or a
 * smaller one still above status.capacity) with decideResize over a snapshot read from caches;
 * every other request is allowed untouched.
 */
export function createPvcResizeValidator(deps: {
  source: ResizeSnapshotSource;
  options: AdmissionOptions;
}): Validator {
  const { source, options } = deps;
  return {
    name: 'pvc-resize',
    path: PVC_RESIZE_PATH,
    validate(request: AdmissionRequest): AdmissionVerdict {
      if (
        request.operation !== 'UPDATE' ||
        request.subResource ||
        request.resource.resource !== 'persistentvolumeclaims'
      ) {
        return allowedVerdict(Decision.NotResize);
      }
      const oldPvc = request.oldObject as PersistentVolumeClaim | null | undefined;
      const pvc = request.object as PersistentVolumeClaim | null | undefined;
      try {
        if (!pvc || !storageGrows(oldPvc, pvc)) return allowedVerdict(Decision.NotResize);
        if (!source.synced()) return notSyncedVerdict(source);
        return toVerdict(
          decideResize(assembleResizeSnapshot(source, oldPvc, pvc, options), options),
          'spec.resources.requests.storage',
        );
      } catch (error) {
        // A size the API server accepted but voe does not compute (1e1000 or more): a clear refusal.
        if (isKubeError(error, KubeErrorCode.QuantityOutOfRange)) {
          return toVerdict(
            outOfRangeDecision(
              `${pvc?.metadata?.namespace ?? ''}/${pvc?.metadata?.name ?? ''}`,
              error,
            ),
            'spec.resources.requests.storage',
          );
        }
        return internalErrorVerdict(
          Decision.InternalError,
          `internal error: ${(error as Error).message}`,
        );
      }
    },
  };
}
