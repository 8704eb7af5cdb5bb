export { KubeError, KubeErrorCode, isKubeError, type KubeErrorCodeValue } from './kube-error.js';
export {
  apiErrorOf,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isTransient,
  type ApiError,
} from './api-error.js';
export {
  parseQuantity,
  parseQuantityCeil,
  parseQuantityValue,
  compareQuantities,
  quantityEquals,
  formatBytes,
  roundUpToMilli,
  formatQuantityValue,
  MAX_QUANTITY_DIGITS,
  MAX_BINARY_QUANTITY,
  type QuantityValue,
} from './quantity.js';
export { realClock, sleep, type Clock } from './clock.js';
export { exponentialDelay, jitteredDelay, type BackoffOptions } from './backoff.js';
export {
  ItemExponentialRateLimiter,
  type RateLimiter,
  type ItemExponentialOptions,
} from './rate-limiter.js';
export { WorkQueue, type WorkQueueOptions } from './work-queue.js';
export {
  runWorkers,
  ok,
  retry,
  retryAfter,
  type WorkResult,
  type WorkHandler,
  type RunWorkersOptions,
} from './run-workers.js';
export {
  requestJson,
  openWatch,
  type KubeRequest,
  type QueryParams,
  type WatchEvent,
  type WatchHandle,
  type WatchRequest,
} from './kube-request.js';
export { resourcePath, type ResourceRef } from './resource-ref.js';
export { objectKey, keyOf, splitKey } from './object-key.js';
export {
  describeFailure,
  Informer,
  NOT_SERVED_RETRY_MS,
  type InformerOptions,
  type InformerHandlers,
  type InformerStats,
  type IndexFunc,
  type OutOfSync,
} from './informer.js';
export { IndexedStore } from './indexed-store.js';
export {
  decideLease,
  releasedRecord,
  type LeaseRecord,
  type LeaseObservation,
  type LeaseDecision,
  type LeaseDecisionInput,
} from './lease-decision.js';
export { leaseLock, microTime, type LeaseLock, type VersionedLease } from './lease-lock.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  type LeaderCallbacks,
} from './leader-elector.js';
export {
  eventKey,
  EventSeriesCache,
  type EventInput,
  type EventType,
  type ObjectRef,
  type SeriesEntry,
} from './event-series.js';
export { eventSink, type EventSink } from './event-sink.js';
export { EventRecorder, type EventRecorderOptions } from './event-recorder.js';
export {
  retryOnConflict,
  updateWithRetry,
  patchMerge,
  patchStatus,
  getObject,
  replaceObject,
  type ConflictRetryOptions,
  type NamedResourceRef,
} from './patch.js';
export { isResourceServed, servedResources } from './resource-served.js';
export { loadKubeConfig } from './load-kube-config.js';
export { retryWhen, type RetryOptions } from './retry-when.js';
export { isDnsLabel, isDnsSubdomain } from './object-names.js';
