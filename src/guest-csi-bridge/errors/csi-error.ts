import { VoeError } from '../../errors/index.js';

/**
 * Stable codes of the guest CSI bridge's own errors (docs/errors.md, section "guest-csi-bridge").
 * Each maps to one gRPC status code in grpcStatusOf, the only place that decides it.
 */
export const CsiErrorCode = {
  /** A required field is missing or malformed (INVALID_ARGUMENT). */
  InvalidArgument: 'CSI_INVALID_ARGUMENT',
  /** An access type, access mode or content source the driver does not serve (INVALID_ARGUMENT). */
  UnsupportedCapability: 'CSI_UNSUPPORTED_CAPABILITY',
  /** The secrets carry a host kubeconfig that cannot be used (INVALID_ARGUMENT). */
  HostCredentialsInvalid: 'CSI_HOST_CREDENTIALS_INVALID',
  /** No host PVC of that volume id (NOT_FOUND). */
  VolumeNotFound: 'CSI_VOLUME_NOT_FOUND',
  /** No VirtualMachine of that node id in the host namespace (NOT_FOUND). */
  NodeNotFound: 'CSI_NODE_NOT_FOUND',
  /** The volume or staging path does not exist on this node (NOT_FOUND). */
  PathNotFound: 'CSI_PATH_NOT_FOUND',
  /** No device of the volume on this node (NOT_FOUND). */
  DeviceNotFound: 'CSI_DEVICE_NOT_FOUND',
  /** A single-node volume is published to another guest node's VM (FAILED_PRECONDITION). */
  VolumePublishedElsewhere: 'CSI_VOLUME_PUBLISHED_ELSEWHERE',
  /** A volume of that name exists with another size or mode (ALREADY_EXISTS). */
  VolumeExists: 'CSI_VOLUME_EXISTS',
  /** No guest snapshot (host VolumeSnapshot) of that snapshot id (NOT_FOUND). */
  SnapshotNotFound: 'CSI_SNAPSHOT_NOT_FOUND',
  /** A snapshot of that name exists of another source volume (ALREADY_EXISTS). */
  SnapshotExists: 'CSI_SNAPSHOT_EXISTS',
  /** The host VolumeSnapshot of that name is being deleted; a new one can be made once it is gone (ABORTED). */
  SnapshotBeingDeleted: 'CSI_SNAPSHOT_BEING_DELETED',
  /** Neither the VolumeSnapshotClass parameter nor the host's csi-driver-config names a host VolumeSnapshotClass (FAILED_PRECONDITION). */
  HostSnapshotClassUnknown: 'CSI_HOST_SNAPSHOT_CLASS_UNKNOWN',
  /** The host's snapshot controller reports an error on the host VolumeSnapshot (INTERNAL). */
  HostSnapshotFailed: 'CSI_HOST_SNAPSHOT_FAILED',
  /** A backup snapshot on a host that does not serve Harvester's VolumeRemoteBackups (before v1.8) (FAILED_PRECONDITION). */
  HostBackupsUnserved: 'CSI_HOST_BACKUPS_UNSERVED',
  /** A volume restored from a backup snapshot: Harvester's VolumeRemoteRestore has not made its host PVC yet (ABORTED). */
  RestorePending: 'CSI_RESTORE_PENDING',
  /** Harvester reports an error on the VolumeRemoteRestore of a volume restored from a backup snapshot (INTERNAL). */
  HostRestoreFailed: 'CSI_HOST_RESTORE_FAILED',
  /** ListSnapshots' starting_token is not one this driver gave, or no longer points into the list (ABORTED). */
  InvalidStartingToken: 'CSI_INVALID_STARTING_TOKEN',
  /** The size asked for cannot be given within the limit (OUT_OF_RANGE). */
  CapacityOutOfRange: 'CSI_CAPACITY_OUT_OF_RANGE',
  /** The host's admission refused the growth (its `PVC_EXPAND` answer or another refusal) (INVALID_ARGUMENT). */
  ExpansionRefused: 'CSI_EXPANSION_REFUSED',
  /** The host PVC's provisioner is not validated in the host's csi-online-expand-validation Setting (INVALID_ARGUMENT). */
  ProviderNotValidated: 'CSI_PROVIDER_NOT_VALIDATED',
  /** The host's own resizer marked the host PVC's growth infeasible (OUT_OF_RANGE). */
  HostResizeInfeasible: 'CSI_HOST_RESIZE_INFEASIBLE',
  /** Another operation on the same volume is running (ABORTED). */
  OperationPending: 'CSI_OPERATION_PENDING',
  /** A host PVC of that name is being deleted; a new one can be made once it is gone (ABORTED). */
  VolumeBeingDeleted: 'CSI_VOLUME_BEING_DELETED',
  /** The hotplug into (or out of) the guest node's VM has not finished yet (ABORTED). */
  HotplugPending: 'CSI_HOTPLUG_PENDING',
  /** A Block volume's host VolumeAttachment is on another host node than its VMI's, e.g. a live migration in progress (ABORTED). */
  HostAttachmentElsewhere: 'CSI_HOST_ATTACHMENT_ELSEWHERE',
  /** The host PVC is not bound yet (UNAVAILABLE). */
  HostPvcNotBound: 'CSI_HOST_PVC_NOT_BOUND',
  /** The NFS share of a shared (RWX) volume is not exported yet: its NetworkFilesystem's endpoint is not Ready (UNAVAILABLE). */
  ShareNotReady: 'CSI_SHARE_NOT_READY',
  /** The host did not get there before the call's deadline (DEADLINE_EXCEEDED). */
  HostTimeout: 'CSI_HOST_TIMEOUT',
  /** The host PVC has not grown, with no infeasible mark, for as long as one resizer call may wait (INTERNAL: final for that call). */
  HostNotGrowing: 'CSI_HOST_NOT_GROWING',
  /** The host API did not answer (UNAVAILABLE). */
  HostUnavailable: 'CSI_HOST_UNAVAILABLE',
  /** The host API answered an error the driver cannot act on (INTERNAL). */
  HostRequestFailed: 'CSI_HOST_REQUEST_FAILED',
  /** The host's csi-online-expand-validation Setting cannot be parsed (INTERNAL). */
  SettingInvalid: 'CSI_SETTING_INVALID',
  /** The volume path is not a mount point (FAILED_PRECONDITION). */
  NotMounted: 'CSI_NOT_MOUNTED',
  /** The volume's device link did not show up in time on a node it is published to (UNAVAILABLE). */
  DeviceNotVisible: 'CSI_DEVICE_NOT_VISIBLE',
  /** The device did not show the size asked for before the deadline (UNAVAILABLE). */
  DeviceNotGrown: 'CSI_DEVICE_NOT_GROWN',
  /** A mount, unmount or format tool failed (INTERNAL). */
  MountFailed: 'CSI_MOUNT_FAILED',
  /** `--endpoint` is not a unix:// socket path, or names something that is not a socket (at start-up). */
  EndpointInvalid: 'CSI_ENDPOINT_INVALID',
  /** Another process serves the endpoint's socket (at start-up). */
  EndpointInUse: 'CSI_ENDPOINT_IN_USE',
  /** `--metrics-port` cannot be listened on (at start-up). */
  MetricsListenFailed: 'CSI_METRICS_LISTEN_FAILED',
  /** The node monitor was asked of a process that serves no controller (at start-up). */
  NodeMonitorNeedsController: 'CSI_NODE_MONITOR_NEEDS_CONTROLLER',
  /** Anything voe did not expect: only in an RPC's details, its log has the error (INTERNAL). */
  Unexpected: 'CSI_UNEXPECTED',
} as const;

export type CsiErrorCode = (typeof CsiErrorCode)[keyof typeof CsiErrorCode];

/** An error of the guest CSI bridge; its message never holds secrets. */
export class CsiError extends VoeError<CsiErrorCode> {}

export function isCsiError(value: unknown, code?: CsiErrorCode): value is CsiError {
  return value instanceof CsiError && (code === undefined || value.code === code);
}
