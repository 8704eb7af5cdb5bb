import { resolveAdmissionOptions, type AdmissionOptions } from './admission-options.js';
import type { Cache } from './cache.js';
import { createCacheSnapshotSource, type AdmissionCaches } from './cache-snapshot-source.js';
import { createCacheCsiDriverSource } from './cache-csi-driver-source.js';
import { createExpandSettingValidator } from './expand-setting-validator.js';
import type { CsiDriver } from './kube-objects.js';
import { createPvcResizeValidator } from './pvc-resize-validator.js';
import type { Validator } from './validator.js';
import { createVmClaimTemplatesValidator } from './vm-claim-templates-validator.js';

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
