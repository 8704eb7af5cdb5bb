import {
  resolveAdmissionOptions,
  type AdmissionOptions,
  createExpandSettingValidator,
  createPvcResizeValidator,
  type Validator,
  createVmClaimTemplatesValidator,
} from '../admission/index.js';
import {
  type Cache,
  createCacheSnapshotSource,
  type AdmissionCaches,
  createCacheCsiDriverSource,
} from '../host-cache/index.js';
import type { CsiDriver } from '../model/index.js';

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
