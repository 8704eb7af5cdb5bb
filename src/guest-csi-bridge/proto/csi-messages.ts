/**
 * The CSI messages as proto-loader delivers them with PROTO_LOADER_OPTIONS: every field present
 * (unset messages are null, maps {}, repeated fields []), int64 as decimal strings, enums by name,
 * and each oneof's name set to the field that is set. Answers may give int64 as strings or
 * numbers and enums by name.
 */

export type Secrets = Record<string, string>;

export type AccessModeName =
  | 'UNKNOWN'
  | 'SINGLE_NODE_WRITER'
  | 'SINGLE_NODE_READER_ONLY'
  | 'MULTI_NODE_READER_ONLY'
  | 'MULTI_NODE_SINGLE_WRITER'
  | 'MULTI_NODE_MULTI_WRITER'
  | 'SINGLE_NODE_SINGLE_WRITER'
  | 'SINGLE_NODE_MULTI_WRITER';

export interface VolumeCapabilityMessage {
  block?: Record<string, never> | null;
  mount?: { fs_type: string; mount_flags: string[]; volume_mount_group?: string } | null;
  access_mode?: { mode: AccessModeName } | null;
  access_type?: 'block' | 'mount';
}

export interface CapacityRangeMessage {
  required_bytes: string;
  limit_bytes: string;
}

export interface VolumeContentSourceMessage {
  snapshot?: { snapshot_id: string } | null;
  volume?: { volume_id: string } | null;
  type?: 'snapshot' | 'volume';
}

export interface VolumeMessage {
  capacity_bytes: string | number;
  volume_id: string;
  volume_context: Record<string, string>;
  content_source?: VolumeContentSourceMessage;
}

export interface CreateVolumeRequest {
  name: string;
  capacity_range: CapacityRangeMessage | null;
  volume_capabilities: VolumeCapabilityMessage[];
  parameters: Record<string, string>;
  secrets: Secrets;
  volume_content_source: VolumeContentSourceMessage | null;
  mutable_parameters?: Record<string, string>;
}

export interface DeleteVolumeRequest {
  volume_id: string;
  secrets: Secrets;
}

export interface ControllerPublishVolumeRequest {
  volume_id: string;
  node_id: string;
  volume_capability: VolumeCapabilityMessage | null;
  readonly: boolean;
  secrets: Secrets;
  volume_context: Record<string, string>;
}

export interface ControllerUnpublishVolumeRequest {
  volume_id: string;
  node_id: string;
  secrets: Secrets;
}

export interface ValidateVolumeCapabilitiesRequest {
  volume_id: string;
  volume_context: Record<string, string>;
  volume_capabilities: VolumeCapabilityMessage[];
  parameters: Record<string, string>;
  secrets: Secrets;
  mutable_parameters?: Record<string, string>;
}

export interface ValidateVolumeCapabilitiesResponse {
  confirmed: {
    volume_context: Record<string, string>;
    volume_capabilities: VolumeCapabilityMessage[];
    parameters: Record<string, string>;
  } | null;
  message: string;
}

export interface ControllerExpandVolumeRequest {
  volume_id: string;
  capacity_range: CapacityRangeMessage | null;
  secrets: Secrets;
  volume_capability: VolumeCapabilityMessage | null;
}

export interface ControllerExpandVolumeResponse {
  capacity_bytes: string;
  node_expansion_required: boolean;
}

export interface NodeStageVolumeRequest {
  volume_id: string;
  publish_context: Record<string, string>;
  staging_target_path: string;
  volume_capability: VolumeCapabilityMessage | null;
  secrets: Secrets;
  volume_context: Record<string, string>;
}

export interface NodeUnstageVolumeRequest {
  volume_id: string;
  staging_target_path: string;
}

export interface NodePublishVolumeRequest {
  volume_id: string;
  publish_context: Record<string, string>;
  staging_target_path: string;
  target_path: string;
  volume_capability: VolumeCapabilityMessage | null;
  readonly: boolean;
  secrets: Secrets;
  volume_context: Record<string, string>;
}

export interface NodeUnpublishVolumeRequest {
  volume_id: string;
  target_path: string;
}

export interface NodeGetVolumeStatsRequest {
  volume_id: string;
  volume_path: string;
  staging_target_path: string;
}

export interface VolumeUsageMessage {
  available: string;
  total: string;
  used: string;
  unit: 'BYTES' | 'INODES';
}

export interface NodeExpandVolumeRequest {
  volume_id: string;
  volume_path: string;
  capacity_range: CapacityRangeMessage | null;
  staging_target_path: string;
  volume_capability: VolumeCapabilityMessage | null;
  secrets: Secrets;
}

export interface CreateSnapshotRequest {
  source_volume_id: string;
  name: string;
  secrets: Secrets;
  parameters: Record<string, string>;
}

/** A google.protobuf.Timestamp. */
export interface TimestampMessage {
  seconds: string;
  nanos: number;
}

export interface SnapshotMessage {
  size_bytes: string;
  snapshot_id: string;
  source_volume_id: string;
  creation_time: TimestampMessage | null;
  ready_to_use: boolean;
}

export interface DeleteSnapshotRequest {
  snapshot_id: string;
  secrets: Secrets;
}

export interface ListSnapshotsRequest {
  max_entries: number;
  starting_token: string;
  source_volume_id: string;
  snapshot_id: string;
  secrets: Secrets;
}

export interface ListSnapshotsResponse {
  entries: Array<{ snapshot: SnapshotMessage }>;
  next_token: string;
}
