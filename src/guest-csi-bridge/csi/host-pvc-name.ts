import { createHash } from 'node:crypto';

/** A DNS-1123 label: what a PVC name, a KubeVirt volume name and a disk name all accept. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** How many characters of the CSI name a derived host PVC name keeps before its hash. */
const KEPT = 40;

/**
 * The host PVC name (and so the CSI volume_id) for a CreateVolume `name`. The name itself when it
 * is a DNS-1123 label of at most 63 characters, as every name external-provisioner gives
 * (`pvc-<uid>`) and as Harvester's driver uses it, so volumes made by either driver have the
 * same id. Any other name (upper case, other characters, longer: the CSI spec allows 128
 * characters of anything) gets a derived one, the same for the same name every time:
 * `<up to 40 characters of it, lower-cased, other characters as '-'>-<12 hex digits of its SHA-256>`.
 */
export function hostPvcName(csiName: string): string {
  if (DNS_LABEL.test(csiName)) return csiName;
  const hash = createHash('sha256').update(csiName, 'utf8').digest('hex').slice(0, 12);
  const kept = csiName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, KEPT)
    .replace(/^-+|-+$/g, '');
  return kept === '' ? `vol-${hash}` : `${kept}-${hash}`;
}

/** Whether `volumeId` could name a host PVC (and a VM volume): anything else cannot exist. */
export function isHostPvcName(volumeId: string): boolean {
  return DNS_LABEL.test(volumeId);
}
