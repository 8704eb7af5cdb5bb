import { CsiError } from '../errors/csi-error.js';
import type { AccessModeName, VolumeCapabilityMessage } from '../proto/csi-messages.js';

/** What the driver reads from a VolumeCapability. */
export interface VolumeCapability {
  accessType: 'block' | 'mount';
  /** Mount only: the filesystem to make and mount; '' when the CO leaves it to the driver. */
  fsType: string;
  mountFlags: readonly string[];
  accessMode: AccessModeName;
}

/** The filesystem made on a blank device when the capability names none (as Harvester's driver does). */
export const DEFAULT_FS_TYPE = 'ext4';

/** Filesystems the node service makes and grows. */
export const SUPPORTED_FS_TYPES = ['ext4', 'ext3', 'xfs'] as const;

/**
 * Access modes the driver serves: a single-node volume is a disk of one guest node's VM (the host
 * PVC is ReadWriteMany so that the VM can live-migrate, not so that guest nodes can share it); a
 * shared volume (MULTI_NODE_MULTI_WRITER, mount only) is the NFS share of a host Longhorn RWX
 * volume, exported through Harvester's NetworkFilesystem (see controller/publish-share.ts).
 */
export const SUPPORTED_ACCESS_MODES: readonly AccessModeName[] = [
  'SINGLE_NODE_WRITER',
  'SINGLE_NODE_READER_ONLY',
  'MULTI_NODE_MULTI_WRITER',
];

/** The access mode of a shared (RWX) volume: an NFS share mounted by every guest node that uses it. */
export const SHARED_ACCESS_MODE: AccessModeName = 'MULTI_NODE_MULTI_WRITER';

/** Whether the capability asks for a shared (RWX) volume. Pure. */
export function isShared(capability: VolumeCapability | undefined): boolean {
  return capability?.accessMode === SHARED_ACCESS_MODE;
}

/** The capability read, or undefined when absent. Throws CSI_INVALID_ARGUMENT when it sets neither or both access types. */
export function readCapability(
  message: VolumeCapabilityMessage | null | undefined,
  field: string,
): VolumeCapability | undefined {
  if (message === null || message === undefined) return undefined;
  const block = message.block !== null && message.block !== undefined;
  const mount = message.mount !== null && message.mount !== undefined;
  if (block === mount)
    throw new CsiError(
      'CSI_INVALID_ARGUMENT',
      `${field}: a volume capability must set exactly one access type, block or mount`,
    );
  return {
    accessType: block ? 'block' : 'mount',
    fsType: mount ? (message.mount?.fs_type ?? '') : '',
    mountFlags: mount ? (message.mount?.mount_flags ?? []) : [],
    accessMode: message.access_mode?.mode ?? 'UNKNOWN',
  };
}

/** The capability, which must be given (CSI_INVALID_ARGUMENT otherwise). */
export function requireCapability(
  message: VolumeCapabilityMessage | null | undefined,
  field: string,
): VolumeCapability {
  const capability = readCapability(message, field);
  if (capability === undefined) throw new CsiError('CSI_INVALID_ARGUMENT', `${field} is required`);
  return capability;
}

/** Why the driver cannot serve `capability`, or undefined when it can. */
export function unsupportedReason(capability: VolumeCapability): string | undefined {
  if (!SUPPORTED_ACCESS_MODES.includes(capability.accessMode))
    return `access mode ${capability.accessMode} is not supported (use ${SUPPORTED_ACCESS_MODES.join(', ')})`;
  if (isShared(capability) && capability.accessType === 'block')
    return `access mode ${SHARED_ACCESS_MODE} is served for mount volumes only (an NFS share); a block volume is a disk of one guest node`;
  if (
    capability.accessType === 'mount' &&
    !isShared(capability) &&
    capability.fsType !== '' &&
    !(SUPPORTED_FS_TYPES as readonly string[]).includes(capability.fsType)
  )
    return `filesystem ${capability.fsType} is not supported (use ${SUPPORTED_FS_TYPES.join(', ')})`;
  return undefined;
}

/** Throws CSI_UNSUPPORTED_CAPABILITY when the driver cannot serve `capability`. */
export function checkSupported(capability: VolumeCapability, field: string): void {
  const reason = unsupportedReason(capability);
  if (reason !== undefined) throw new CsiError('CSI_UNSUPPORTED_CAPABILITY', `${field}: ${reason}`);
}
