export type { AdmissionCaches } from './cache-snapshot-source.js';
export type { Cache } from './cache.js';
export type { StartedAdmissionCaches } from './start-admission-caches.js';
export { withoutManagedFields } from './without-managed-fields.js';
