export { buildAdmissionCaches } from './build-admission-caches.js';
export { createCacheCsiDriverSource } from './cache-csi-driver-source.js';
export { createCacheSnapshotSource, type AdmissionCaches } from './cache-snapshot-source.js';
export type { Cache } from './cache.js';
export { isLonghornServed } from './follow-longhorn.js';
export { listItems, listOf } from './list-items.js';
export { startAdmissionCaches, type StartedAdmissionCaches } from './start-admission-caches.js';
export { withoutManagedFields } from './without-managed-fields.js';
