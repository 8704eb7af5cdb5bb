import { resolveAdmissionOptions, type AdmissionOptions } from '../admission/index.js';
import type { Cache } from '../cluster/index.js';
import { createCacheSnapshotSource, type AdmissionCaches } from '../cluster/index.js';
import { createCacheCsiDriverSource } from '../cluster/index.js';
import { createExpandSettingValidator } from '../admission/index.js';
import type { CsiDriver } from '../admission/index.js';
import { createPvcResizeValidator } from '../admission/index.js';
import type { Validator } from '../admission/index.js';
import { createVmClaimTemplatesValidator } from '../admission/index.js';

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
