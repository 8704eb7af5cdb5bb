export {
  startCsiDriver,
  DEFAULT_DRIVER_NAME,
  type CsiDriver,
  type CsiDriverOptions,
  type CsiServices,
} from './start-csi-driver.js';
export { CsiError, isCsiError, CsiErrorCode } from './errors/csi-error.js';
export { grpcStatusOf, type GrpcStatus } from './errors/grpc-status-of.js';
export {
  loadCsiServices,
  csiProtoPath,
  PROTO_LOADER_OPTIONS,
  type CsiServices as CsiServiceDefinitions,
} from './proto/load-csi-services.js';
export type * from './proto/csi-messages.js';
export { hostPvcName, isHostPvcName } from './csi/host-pvc-name.js';
export { readCapacityRange, roundUp, type CapacityRange } from './csi/capacity-range.js';
export {
  readCapability,
  requireCapability,
  unsupportedReason,
  checkSupported,
  DEFAULT_FS_TYPE,
  SUPPORTED_FS_TYPES,
  SUPPORTED_ACCESS_MODES,
  type VolumeCapability,
} from './csi/volume-capability.js';
export { VolumeLocks } from './csi/volume-locks.js';
export {
  decideExpansion,
  type ExpansionDecision,
  type ExpansionRequest,
  type HostFacts,
} from './controller/decide-expansion.js';
export { readExpandSetting, type ExpandSetting } from './controller/expand-setting.js';
export {
  provisionersToJudge,
  storageClassNameOf,
  BETA_PROVISIONER_ANNOTATION,
  PROVISIONER_ANNOTATION,
} from './controller/provisioners-to-judge.js';
export { capacityBytesOf, requestBytesOf, hostResizeInfeasible } from './controller/pvc-sizes.js';
export {
  planHostPvc,
  incompatibility,
  hostStorageClassFor,
  hostVolumeModeFor,
  MIN_VOLUME_BYTES,
  HOST_ROUNDING_BYTES,
  HOST_STORAGE_CLASS_PARAMETER,
  HOST_VOLUME_MODE_PARAMETER,
  VOLUME_FOR_VM_ANNOTATION,
  CSI_NAME_ANNOTATION,
  type HostPvcPlan,
  type PlanInput,
} from './controller/plan-host-pvc.js';
export {
  decideHotplugMode,
  DECLARATIVE_HOTPLUG_SINCE,
  type HotplugMode,
} from './controller/decide-hotplug-mode.js';
export {
  hotplugOperations,
  unplugOperations,
  legacyAddVolumeBody,
  legacyRemoveVolumeBody,
  HOTPLUG_BUS,
} from './controller/hotplug-requests.js';
export {
  attachmentOf,
  vmiShowsVolume,
  vmiListsVolume,
  type Attachment,
} from './controller/attachment-of.js';
export {
  CONTROLLER_CAPABILITIES,
  createControllerService,
} from './controller/controller-service.js';
export {
  DEFAULT_CONTROLLER_TIMEOUTS,
  SERVER_VERSION_SETTING,
  type ControllerDeps,
  type ControllerTimeouts,
} from './controller/controller-deps.js';
export type { HostApi, WaitOptions, WaitStart } from './host/host-api.js';
export type * from './host/host-objects.js';
export { createKubeHostApi } from './host/kube-host-api.js';
export {
  createHostResolver,
  HOST_KUBECONFIG_SECRET_KEY,
  type HostResolver,
} from './host/host-resolver.js';
export { hostFailure, isResizeRefusal } from './host/host-failure.js';
export { hostNamespaceOf } from './host/host-namespace.js';
export { waitForObject } from './host/wait-for-object.js';
export { createIdentityService, type IdentityDeps } from './identity/identity-service.js';
export { pickDeviceLink } from './node/pick-device-link.js';
export {
  createByIdLocator,
  DEFAULT_BY_ID_DIRECTORY,
  type DeviceLocator,
} from './node/device-locator.js';
export { createMounter, type Mounter } from './node/mounter.js';
export { createSysfsScsiRescanner, type ScsiRescanner } from './node/scsi-rescanner.js';
export { pickNodeId } from './node/pick-node-id.js';
export { discoverNodeId, readGuestMacs } from './node/discover-node-id.js';
export { NODE_CAPABILITIES, createNodeService } from './node/node-service.js';
export { DEFAULT_NODE_TIMEOUTS, type NodeDeps, type NodeTimeouts } from './node/node-deps.js';
export { waitForDeviceSize } from './node/wait-for-device-size.js';
export { parseEndpoint } from './server/parse-endpoint.js';
export { removeStaleSocket } from './server/remove-stale-socket.js';
export { serveCsi, type CsiServer, type ServeCsiOptions } from './server/serve-csi.js';
export { withWaitSignal, type CallContext } from './server/call-context.js';
export type { ServiceHandlers, UnaryHandler } from './server/service-handlers.js';
