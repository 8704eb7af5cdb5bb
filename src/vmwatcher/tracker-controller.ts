/** The reportingController of the tracker's Events (core/v1 `reportingComponent`). */
export const TRACKER_CONTROLLER = 'storage.voe.dev/vmwatcher';
