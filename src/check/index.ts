export { CheckError } from './check-error.js';
export { checkResize, type CheckResult } from './check-resize.js';
export { loadCheckCaches } from './load-check-caches.js';
export { loadClusterCaches } from './load-cluster-caches.js';
export { readCheckSize } from './read-check-size.js';
export { readNamespacePolicies } from './read-namespace-policies.js';
