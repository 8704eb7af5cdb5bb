import type { VirtualMachineInstance, VmiVolumeStatus, VmVolume } from '../../model/index.js';

/** The VMI volume that uses the claim: its spec entry and its status entry. Pure. */
export function vmiVolume(
  vmi: VirtualMachineInstance,
  claimName: string,
): { spec: VmVolume | undefined; status: VmiVolumeStatus | undefined } {
  const spec = (vmi.spec?.volumes ?? []).find(
    (volume) => (volume.persistentVolumeClaim?.claimName ?? volume.dataVolume?.name) === claimName,
  );
  const status = (vmi.status?.volumeStatus ?? []).find(
    (entry) =>
      entry.persistentVolumeClaimInfo?.claimName === claimName ||
      (spec?.name !== undefined && entry.name === spec.name),
  );
  return { spec, status };
}

/** Whether the volume is hotplugged (its spec says so, or KubeVirt lists its hotplug pod). Pure. */
export function isHotplugged(
  spec: VmVolume | undefined,
  status: VmiVolumeStatus | undefined,
): boolean {
  return (
    spec?.persistentVolumeClaim?.hotpluggable === true ||
    spec?.dataVolume?.hotpluggable === true ||
    (status?.hotplugVolume !== undefined && status.hotplugVolume !== null)
  );
}
