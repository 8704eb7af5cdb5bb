export {
  apiErrorOf,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isTransient,
} from './api-error.js';
export { exponentialDelay, type BackoffOptions } from './backoff.js';
export { realClock, sleep, type Clock } from './clock.js';
export { EventRecorder } from './event-recorder.js';
export type { EventType, ObjectRef } from './event-series.js';
export { eventSink } from './event-sink.js';
export { IndexedStore } from './indexed-store.js';
export { Informer, NOT_SERVED_RETRY_MS, describeFailure, type IndexFunc } from './informer.js';
export { KubeError, KubeErrorCode, isKubeError } from './kube-error.js';
export { openWatch, requestJson, type KubeRequest, type WatchEvent } from './kube-request.js';
export { LeaderElector } from './leader-elector.js';
export { leaseLock } from './lease-lock.js';
export type { KubeClientConfig } from './kube-client-config.js';
export { LeanKubeConfig, type KubeConfigEntries } from './lean-kube-config.js';
export { loadKubeConfig } from './load-kube-config.js';
export { kubeConfigEntriesOf } from './read-kubeconfig.js';
export { keyOf, splitKey } from './object-key.js';
export { isDnsLabel, isDnsSubdomain } from './object-names.js';
export {
  getObject,
  replaceObject,
  retryOnConflict,
  updateWithRetry,
  type NamedResourceRef,
} from './patch.js';
export {
  compareQuantities,
  formatBytes,
  formatQuantityValue,
  parseQuantity,
  parseQuantityCeil,
  parseQuantityValue,
  roundUpToMilli,
  type QuantityValue,
} from './quantity.js';
export { resourcePath, type ResourceRef } from './resource-ref.js';
export { isResourceServed, servedResources } from './resource-served.js';
export { retryWhen } from './retry-when.js';
export { ok, retryAfter, runWorkers, type WorkResult } from './run-workers.js';
export { WorkQueue } from './work-queue.js';
