import { LONGHORN_DRIVER, parseExpandValidation, SettingInvalidError } from '../settings/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { claimClassName } from './api-server-checks.js';
import { provisionersToJudge } from './provisioners-to-judge.js';
import type { LonghornVolume, PersistentVolumeClaim } from '../model/index.js';
import type { ResizeSnapshotSource } from './resize-snapshot-source.js';
import type { ExpandSettingState, ResizeSnapshot } from './resize-snapshot.js';

/**
 * Parsed once per Setting object: caches hand out the same object until it changes (an informer
 * replaces it on every update), so the JSON is not parsed again on every admission request.
 */
const parsedSettings = new WeakMap<object, ExpandSettingState>();

/** Reads the csi-online-expand-validation Setting from the source and parses it. */
export function readExpandSetting(
  source: Pick<ResizeSnapshotSource, 'getSetting'>,
  settingName: string,
): ExpandSettingState {
  const setting = source.getSetting(settingName);
  if (!setting) return { state: 'missing' };
  const known = parsedSettings.get(setting);
  if (known) return known;
  let state: ExpandSettingState;
  try {
    state = { state: 'parsed', validation: parseExpandValidation(setting) };
  } catch (error) {
    if (!(error instanceof SettingInvalidError)) throw error;
    state = { state: 'invalid', error };
  }
  parsedSettings.set(setting, state);
  return state;
}

/**
 * Builds the snapshot decideResize judges, from the source (caches). Longhorn objects are read
 * only for Longhorn PVCs; when the source holds none (not watched) the snapshot records
 * `longhorn.read: false`. Callers check `source.synced()` first.
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
  // The class the API server's resize admission and the PV controller read (the beta annotation first).
  const claimClass = claimClassName(pvc);
  const snapshot: ResizeSnapshot = {
    oldPvc: oldPvc ?? null,
    pvc,
    storageClass,
    ...(claimClass !== '' && claimClass !== className
      ? { claimStorageClass: source.getStorageClass(claimClass) ?? null }
      : {}),
    vms: source.vmsUsingPvc(namespace, name),
    vmis: source.vmisUsingPvc(namespace, name),
    kubeVirt: source.getKubeVirt() ?? null,
    expandSetting: readExpandSetting(source, options.settingName),
  };
  if (
    !provisionersToJudge(pvc, oldPvc, storageClass, snapshot.claimStorageClass).includes(
      LONGHORN_DRIVER,
    )
  )
    return snapshot;
  if (!source.readsLonghorn) {
    snapshot.longhorn = { volume: null, engines: [], read: false };
    return snapshot;
  }
  const pvName = pvc.spec?.volumeName;
  // "" when the Setting exists without a value: unknown too, but not missing (the message says which).
  const versionSetting = source.getLonghornSetting(options.longhornVersionSetting);
  const version = versionSetting
    ? typeof versionSetting.value === 'string'
      ? versionSetting.value
      : ''
    : undefined;
  const { volume, recording } = pvName
    ? longhornVolumeOfPv(source, pvName)
    : { volume: undefined, recording: [] };
  snapshot.longhorn = {
    volume: volume ?? null,
    engines: pvName ? source.getLonghornEngines(volume?.metadata?.name ?? pvName) : [],
    ...(recording.length > 1 ? { volumesRecordingPv: recording } : {}),
    ...(version === undefined ? {} : { version }),
  };
  return snapshot;
}

/**
 * The Longhorn Volume behind a PV: the one named after it (Longhorn names the volumes it
 * provisions so), else the only one Longhorn recorded as bound to it (a statically provisioned PV
 * whose volumeHandle names another volume). Several recording the same PV decide nothing; their
 * names are returned so the refusal can say so.
 */
function longhornVolumeOfPv(
  source: ResizeSnapshotSource,
  pvName: string,
): { volume: LonghornVolume | undefined; recording: string[] } {
  const named = source.getLonghornVolume(pvName);
  if (named) return { volume: named, recording: [] };
  const bound = source.getLonghornVolumesOfPv(pvName);
  return {
    volume: bound.length === 1 ? bound[0] : undefined,
    recording: bound.map((v) => v.metadata?.name ?? '').sort(),
  };
}
