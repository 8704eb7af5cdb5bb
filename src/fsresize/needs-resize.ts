import { isSupportedFilesystem, type Inspection } from './inspection.js';

/**
 * True when a supported filesystem covers less of the device than it could: the device is
 * larger than the filesystem by more than one filesystem block (the rule of Kubernetes
 * mount-utils 1.30–1.33, which tolerates the partial last block).
 */
export function needsResize(inspection: Pick<Inspection, 'filesystem' | 'deviceBytes' | 'filesystemBytes' | 'blockBytes'>): boolean {
  const { filesystem, deviceBytes, filesystemBytes, blockBytes } = inspection;
  if (!isSupportedFilesystem(filesystem) || filesystemBytes === null || blockBytes === null) return false;
  return deviceBytes > filesystemBytes + blockBytes;
}
