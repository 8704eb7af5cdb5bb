import { growTargetBytes, type GrowTargetFacts } from './grow-target-bytes.js';
import { isSupportedFilesystem, type Inspection } from '../model/inspection.js';

/**
 * True when a supported filesystem covers less of the device than it could and may be written:
 * the device is larger than the filesystem by more than one filesystem block (the rule of
 * Kubernetes mount-utils 1.30–1.33, which tolerates the partial last block), for ext the size
 * resize2fs would grow it to (growTargetBytes) is larger than the filesystem too, and neither the
 * device nor the mount in use is read-only (mount-utils' NeedResize is false on a read-only device).
 */
export function needsResize(
  inspection: GrowTargetFacts &
    Pick<Inspection, 'filesystemBytes' | 'deviceReadOnly' | 'mountPoint' | 'mountReadOnly'>,
): boolean {
  const { filesystem, deviceBytes, filesystemBytes, blockBytes } = inspection;
  if (!isSupportedFilesystem(filesystem) || filesystemBytes === null || blockBytes === null)
    return false;
  if (inspection.deviceReadOnly || (inspection.mountPoint !== null && inspection.mountReadOnly))
    return false;
  return (
    deviceBytes > filesystemBytes + blockBytes && growTargetBytes(inspection) > filesystemBytes
  );
}
