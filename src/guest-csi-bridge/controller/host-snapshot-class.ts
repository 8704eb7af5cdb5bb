import type { HarvesterSetting } from '../../settings/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc } from '../host/host-objects.js';

/** The VolumeSnapshotClass parameter that names the host VolumeSnapshotClass (as `hostStorageClass` names the host StorageClass). */
export const HOST_SNAPSHOT_CLASS_PARAMETER = 'hostSnapshotClass';
/** The Harvester Setting that maps CSI drivers to their VolumeSnapshotClasses. */
export const CSI_DRIVER_CONFIG_SETTING = 'csi-driver-config';
/** The annotation the host's provisioner writes on a PVC it provisions. */
const STORAGE_PROVISIONER_ANNOTATION = 'volume.kubernetes.io/storage-provisioner';

/**
 * The `volumeSnapshotClassName` of `provisioner` in one field of csi-driver-config (a JSON object
 * of CSI driver name to `{volumeSnapshotClassName, backupVolumeSnapshotClassName}`), or undefined.
 * Pure; a field that is not such JSON is CSI_SETTING_INVALID.
 */
export function snapshotClassIn(
  text: string | undefined,
  field: string,
  provisioner: string,
): string | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CsiError(
      'CSI_SETTING_INVALID',
      `the host Setting ${CSI_DRIVER_CONFIG_SETTING} field "${field}" is not a JSON object of CSI driver name to its VolumeSnapshotClass names`,
    );
  const entry = (parsed as Record<string, unknown>)[provisioner];
  const name = (entry as { volumeSnapshotClassName?: unknown } | null | undefined)
    ?.volumeSnapshotClassName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The host VolumeSnapshotClass of a snapshot of `pvc` (pure given the Setting): the parameter
 * `hostSnapshotClass`, else, as Harvester's driver chooses it (getHostSnapClass), the
 * `volumeSnapshotClassName` of the PVC's provisioner in csi-driver-config's `default`, then in its
 * `value`. None: CSI_HOST_SNAPSHOT_CLASS_UNKNOWN, saying what to set.
 */
export function chooseHostSnapshotClass(
  parameters: Record<string, string>,
  pvc: HostPvc,
  setting: HarvesterSetting | undefined,
): string {
  const named = parameters[HOST_SNAPSHOT_CLASS_PARAMETER];
  if (named) return named;
  const provisioner = pvc.metadata?.annotations?.[STORAGE_PROVISIONER_ANNOTATION] ?? '';
  const found =
    snapshotClassIn(setting?.default, 'default', provisioner) ??
    snapshotClassIn(setting?.value, 'value', provisioner);
  if (found) return found;
  throw new CsiError(
    'CSI_HOST_SNAPSHOT_CLASS_UNKNOWN',
    `no host VolumeSnapshotClass for host PVC ${pvc.metadata?.name ?? ''} (provisioner "${provisioner}"): ` +
      `set the guest VolumeSnapshotClass parameter ${HOST_SNAPSHOT_CLASS_PARAMETER}, or have the host administrator map the provisioner in the Setting ${CSI_DRIVER_CONFIG_SETTING}`,
  );
}

/** chooseHostSnapshotClass, reading csi-driver-config only when the parameter names no class. */
export async function hostSnapshotClassFor(
  host: HostApi,
  parameters: Record<string, string>,
  pvc: HostPvc,
): Promise<string> {
  if (parameters[HOST_SNAPSHOT_CLASS_PARAMETER])
    return chooseHostSnapshotClass(parameters, pvc, undefined);
  return chooseHostSnapshotClass(parameters, pvc, await host.getSetting(CSI_DRIVER_CONFIG_SETTING));
}
