import { LONGHORN_DRIVER, parseExpandValidation, SettingInvalidError } from '../settings/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { resolveProvisioner } from './decide-resize.js';
import type { PersistentVolumeClaim } from './kube-objects.js';
import type { ResizeSnapshotSource } from './resize-snapshot-source.js';
import type { ExpandSettingState, ResizeSnapshot } from './resize-snapshot.js';

/** Reads the csi-online-expand-validation Setting from the source and parses it. */
export function readExpandSetting(source: Pick<ResizeSnapshotSource, 'getSetting'>, settingName: string): ExpandSettingState {
  const setting = source.getSetting(settingName);
  if (!setting) return { state: 'missing' };
  try {
    return { state: 'parsed', validation: parseExpandValidation(setting) };
  } catch (error) {
    if (error instanceof SettingInvalidError) return { state: 'invalid', error };
    throw error;
  }
}

/**
 * Builds the snapshot decideResize judges, from the source (caches). Longhorn objects are read
 * only for Longhorn PVCs. Callers check `source.synced()` first.
 */
export function assembleResizeSnapshot(
  source: ResizeSnapshotSource,
  oldPvc: PersistentVolumeClaim | null | undefined,
  pvc: PersistentVolumeClaim,
  options: AdmissionOptions,
): ResizeSnapshot {
  const namespace = pvc.metadata?.namespace ?? '';
  const name = pvc.metadata?.name ?? '';
  const className = pvc.spec?.storageClassName;
  const storageClass = className ? (source.getStorageClass(className) ?? null) : null;
  const snapshot: ResizeSnapshot = {
    oldPvc: oldPvc ?? null,
    pvc,
    storageClass,
    vms: source.vmsUsingPvc(namespace, name),
    kubeVirt: source.getKubeVirt() ?? null,
    expandSetting: readExpandSetting(source, options.settingName),
  };
  if (resolveProvisioner(pvc, storageClass) === LONGHORN_DRIVER) {
    const volumeName = pvc.spec?.volumeName;
    const version = source.getLonghornSetting(options.longhornVersionSetting)?.value;
    snapshot.longhorn = {
      volume: volumeName ? (source.getLonghornVolume(volumeName) ?? null) : null,
      engines: volumeName ? source.getLonghornEngines(volumeName) : [],
      ...(version ? { version } : {}),
    };
  }
  return snapshot;
}
