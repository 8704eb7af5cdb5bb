import { isAbsolute } from 'node:path';
import { CsiError } from '../errors/csi-error.js';

/**
 * The socket path of a CSI endpoint: `unix:///abs/path.sock` (also `unix:/abs/path.sock`, and a
 * plain absolute path, as some sidecars write it). Throws CSI_ENDPOINT_INVALID otherwise.
 */
export function parseEndpoint(endpoint: string): string {
  const path = endpoint.startsWith('unix://')
    ? endpoint.slice('unix://'.length)
    : endpoint.startsWith('unix:')
      ? endpoint.slice('unix:'.length)
      : endpoint;
  if (!isAbsolute(path) || path.includes('\0'))
    throw new CsiError(
      'CSI_ENDPOINT_INVALID',
      `--endpoint ${JSON.stringify(endpoint.slice(0, 200))} is not a unix socket endpoint with an absolute path; write e.g. unix:///csi/csi.sock`,
    );
  // The kernel's limit for a socket path (sun_path, 108 bytes with its terminating zero).
  if (Buffer.byteLength(path) > 107)
    throw new CsiError(
      'CSI_ENDPOINT_INVALID',
      `--endpoint's socket path is ${Buffer.byteLength(path)} bytes long; a unix socket path has at most 107`,
    );
  return path;
}
