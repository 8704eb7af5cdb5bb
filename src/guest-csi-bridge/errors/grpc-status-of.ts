import { status as Status } from '@grpc/grpc-js';
import { isVoeError } from '../../errors/index.js';
import { isFsResizeError } from '../../fsresize/index.js';
import { isKubeError } from '../../kube/index.js';
import { CsiErrorCode } from './csi-error.js';

const CSI_STATUS: Record<CsiErrorCode, Status> = {
  CSI_INVALID_ARGUMENT: Status.INVALID_ARGUMENT,
  CSI_UNSUPPORTED_CAPABILITY: Status.INVALID_ARGUMENT,
  CSI_HOST_CREDENTIALS_INVALID: Status.INVALID_ARGUMENT,
  CSI_VOLUME_NOT_FOUND: Status.NOT_FOUND,
  CSI_NODE_NOT_FOUND: Status.NOT_FOUND,
  CSI_PATH_NOT_FOUND: Status.NOT_FOUND,
  CSI_DEVICE_NOT_FOUND: Status.NOT_FOUND,
  CSI_VOLUME_EXISTS: Status.ALREADY_EXISTS,
  CSI_CAPACITY_OUT_OF_RANGE: Status.OUT_OF_RANGE,
  CSI_SNAPSHOT_NOT_FOUND: Status.NOT_FOUND,
  CSI_SNAPSHOT_EXISTS: Status.ALREADY_EXISTS,
  CSI_SNAPSHOT_BEING_DELETED: Status.ABORTED,
  CSI_HOST_SNAPSHOT_CLASS_UNKNOWN: Status.FAILED_PRECONDITION,
  CSI_HOST_SNAPSHOT_FAILED: Status.INTERNAL,
  CSI_HOST_BACKUPS_UNSERVED: Status.FAILED_PRECONDITION,
  CSI_RESTORE_PENDING: Status.ABORTED,
  CSI_HOST_RESTORE_FAILED: Status.INTERNAL,
  // The CSI spec's code for a starting_token the plugin cannot use.
  CSI_INVALID_STARTING_TOKEN: Status.ABORTED,
  // external-resizer (>= v1.12, IsInfeasibleError) counts INVALID_ARGUMENT, OUT_OF_RANGE and
  // NOT_FOUND as infeasible: the guest PVC becomes ControllerResizeInfeasible and the user may
  // lower the request again, instead of a retry every few minutes for ever.
  CSI_EXPANSION_REFUSED: Status.INVALID_ARGUMENT,
  CSI_PROVIDER_NOT_VALIDATED: Status.INVALID_ARGUMENT,
  CSI_HOST_RESIZE_INFEASIBLE: Status.OUT_OF_RANGE,
  CSI_OPERATION_PENDING: Status.ABORTED,
  CSI_VOLUME_BEING_DELETED: Status.ABORTED,
  CSI_HOTPLUG_PENDING: Status.ABORTED,
  // external-attacher retries ABORTED; harvester-csi-driver answers DEADLINE_EXCEEDED here.
  CSI_HOST_ATTACHMENT_ELSEWHERE: Status.ABORTED,
  CSI_HOST_PVC_NOT_BOUND: Status.UNAVAILABLE,
  CSI_SHARE_NOT_READY: Status.UNAVAILABLE,
  CSI_HOST_TIMEOUT: Status.DEADLINE_EXCEEDED,
  CSI_HOST_NOT_GROWING: Status.INTERNAL,
  CSI_HOST_UNAVAILABLE: Status.UNAVAILABLE,
  CSI_HOST_REQUEST_FAILED: Status.INTERNAL,
  CSI_SETTING_INVALID: Status.INTERNAL,
  CSI_NOT_MOUNTED: Status.FAILED_PRECONDITION,
  CSI_VOLUME_PUBLISHED_ELSEWHERE: Status.FAILED_PRECONDITION,
  CSI_DEVICE_NOT_GROWN: Status.UNAVAILABLE,
  CSI_DEVICE_NOT_VISIBLE: Status.UNAVAILABLE,
  CSI_MOUNT_FAILED: Status.INTERNAL,
  // Start-up errors: never an RPC's answer.
  CSI_ENDPOINT_INVALID: Status.INTERNAL,
  CSI_ENDPOINT_IN_USE: Status.INTERNAL,
  CSI_METRICS_LISTEN_FAILED: Status.INTERNAL,
  CSI_NODE_MONITOR_NEEDS_CONTROLLER: Status.INTERNAL,
  CSI_UNEXPECTED: Status.INTERNAL,
};

/** The filesystem-resize core's codes that are not INTERNAL when NodeExpandVolume meets them. */
const FSRESIZE_STATUS: Partial<Record<string, Status>> = {
  FSRESIZE_INVALID_ARGUMENT: Status.INVALID_ARGUMENT,
  FSRESIZE_DEVICE_NOT_FOUND: Status.NOT_FOUND,
  FSRESIZE_NOT_A_BLOCK_DEVICE: Status.INVALID_ARGUMENT,
  // Nothing on the device can ever be grown by the core: infeasible for kubelet too.
  FSRESIZE_PARTITIONED: Status.INVALID_ARGUMENT,
  FSRESIZE_UNSUPPORTED_FILESYSTEM: Status.INVALID_ARGUMENT,
  FSRESIZE_EXT_32BIT_LIMIT: Status.OUT_OF_RANGE,
  FSRESIZE_NOT_MOUNTED: Status.FAILED_PRECONDITION,
  FSRESIZE_MOUNT_MISMATCH: Status.FAILED_PRECONDITION,
  FSRESIZE_MOUNT_READ_ONLY: Status.FAILED_PRECONDITION,
  FSRESIZE_DEVICE_READ_ONLY: Status.FAILED_PRECONDITION,
  FSRESIZE_DEVICE_TOO_SMALL: Status.UNAVAILABLE,
  FSRESIZE_BUSY: Status.ABORTED,
  FSRESIZE_INTERRUPTED: Status.ABORTED,
  FSRESIZE_TIMEOUT: Status.DEADLINE_EXCEEDED,
};

export interface GrpcStatus {
  code: Status;
  /** `<CODE>: <message>` for voe's errors; a generic text for anything else (it may hold anything). */
  details: string;
}

/**
 * The one place that decides which gRPC status an error is answered with. voe's errors keep
 * their message, prefixed with their stable code (the CO shows it, e.g. in the PVC's
 * ControllerResizeError condition). Anything else (a bug) is INTERNAL with a fixed text: its
 * message could quote what it was given, secrets included.
 */
export function grpcStatusOf(error: unknown): GrpcStatus {
  if (isVoeError(error)) {
    const details = `${error.code}: ${error.message}`;
    if (error.code in CSI_STATUS) return { code: CSI_STATUS[error.code as CsiErrorCode], details };
    if (isFsResizeError(error))
      return { code: FSRESIZE_STATUS[error.code] ?? Status.INTERNAL, details };
    if (isKubeError(error, 'KUBE_REQUEST_FAILED')) return { code: Status.UNAVAILABLE, details };
    return { code: Status.INTERNAL, details };
  }
  return {
    code: Status.INTERNAL,
    details: `${CsiErrorCode.Unexpected}: the driver failed unexpectedly; its log has the details`,
  };
}
