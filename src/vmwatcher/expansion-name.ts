import { createHash } from 'node:crypto';
import { formatBytes } from '../kube/index.js';

/** Longest object name the API server accepts (a DNS subdomain). */
const MAX_NAME = 253;

/**
 * The VolumeExpansion name for a PVC and requested size: `<pvc>-<size>` with the size in
 * canonical binary units, lower case (`vm1-disk-0-20gi`, `data-1536mi`, `data-10000000000`). The
 * same PVC and size always give the same name, so a restarted tracker, or two at once, never
 * create two objects for one request. A PVC name too long for the suffix is cut and an 8-digit
 * hash of it keeps names apart.
 */
export function expansionName(pvcName: string, bytes: bigint): string {
  const size = formatBytes(bytes).toLowerCase();
  const name = `${pvcName}-${size}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(pvcName).digest('hex').slice(0, 8);
  const kept = pvcName.slice(0, MAX_NAME - size.length - hash.length - 2).replace(/[-.]+$/, '');
  return `${kept}-${hash}-${size}`;
}
