export { DEFAULT_FS_TYPE, SUPPORTED_FS_TYPES } from './csi/volume-capability.js';
export { contextNamespaceOf } from './host/host-namespace.js';
export { DEFAULT_BY_ID_DIRECTORY } from './node/device-locator.js';
export { DEFAULT_DRIVER_NAME, startCsiDriver, type CsiServices } from './start-csi-driver.js';
