import { resolveAdmissionOptions, type AdmissionOptions } from '../admission/admission-options.js';
import type { Cache } from '../cluster/cache.js';
import {
  createCacheSnapshotSource,
  type AdmissionCaches,
} from '../cluster/cache-snapshot-source.js';
import { createCacheCsiDriverSource } from '../cluster/cache-csi-driver-source.js';
import { createExpandSettingValidator } from '../admission/validators/expand-setting-validator.js';
import type { CsiDriver } from '../admission/kube-objects.js';
import { createPvcResizeValidator } from '../admission/validators/pvc-resize-validator.js';
import type { Validator } from '../admission/validators/validator.js';
import { createVmClaimTemplatesValidator } from '../admission/validators/vm-claim-templates-validator.js';

/**
 * The three admission validators over informer caches, ready for the HTTPS server:
 * pvc-resize (/validate/pvc-resize), vm (/validate/vm) and setting (/validate/setting), the
 * names and paths of the server's WEBHOOK_ENDPOINTS.
 */
export function createAdmissionValidators(deps: {
  caches: AdmissionCaches;
  csiDrivers: Cache<CsiDriver>;
  options?: Partial<AdmissionOptions>;
}): Validator[] {
  const options = resolveAdmissionOptions(deps.options);
  const source = createCacheSnapshotSource(deps.caches, options);
  return [
    createPvcResizeValidator({ source, options }),
    createVmClaimTemplatesValidator({ source, options }),
    createExpandSettingValidator({
      csiDrivers: createCacheCsiDriverSource(deps.csiDrivers),
      options,
    }),
  ];
}
