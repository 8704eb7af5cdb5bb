import type { VirtualMachineInstance } from './kubevirt-objects.js';
import { claimNameOf } from './vm-claims.js';

/** VMI phases after which the instance no longer runs (KubeVirt's IsFinal). */
const FINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

/**
 * True while the VMI is not Succeeded or Failed: Pending, Scheduling, Scheduled, Running, Unknown
 * and a VMI with no phase yet all count, as a VM counts as running unless Stopped (isVmRunning):
 * an instance about to start, or whose node does not answer, may run the guest.
 */
export function isVmiRunning(vmi: VirtualMachineInstance): boolean {
  return !FINAL_PHASES.has(vmi.status?.phase ?? '');
}

/**
 * The PVC names the VMI uses: its spec volumes (persistentVolumeClaim.claimName, dataVolume.name)
 * and the claims virt-controller records in status.volumeStatus (a hotplugged volume being unplugged
 * leaves the spec before it is detached from the guest).
 */
export function claimNamesOfVmi(vmi: VirtualMachineInstance): string[] {
  const names = new Set<string>();
  for (const volume of vmi.spec?.volumes ?? []) {
    const name = claimNameOf(volume);
    if (name) names.add(name);
  }
  for (const status of vmi.status?.volumeStatus ?? []) {
    const name = status.persistentVolumeClaimInfo?.claimName;
    if (name) names.add(name);
  }
  return [...names];
}

/** Every "namespace/name" PVC key the VMI uses (claimNamesOfVmi): the index function for "VMIs by PVC" caches. */
export function pvcKeysOfVmi(vmi: VirtualMachineInstance): string[] {
  const namespace = vmi.metadata?.namespace ?? '';
  return claimNamesOfVmi(vmi).map((name) => `${namespace}/${name}`);
}

/**
 * True when the VMI has the PVC `name` hotplugged: a spec volume using it with
 * `persistentVolumeClaim.hotpluggable` or `dataVolume.hotpluggable` true (what the addvolume
 * subresources write), or a status.volumeStatus entry of it with `hotplugVolume` set.
 */
export function vmiHotplugs(vmi: VirtualMachineInstance, name: string): boolean {
  const volumes = (vmi.spec?.volumes ?? []).filter((volume) => claimNameOf(volume) === name);
  if (
    volumes.some(
      (volume) =>
        volume.persistentVolumeClaim?.hotpluggable === true ||
        volume.dataVolume?.hotpluggable === true,
    )
  )
    return true;
  const volumeNames = new Set(volumes.map((volume) => volume.name));
  return (vmi.status?.volumeStatus ?? []).some(
    (status) =>
      status.hotplugVolume !== undefined &&
      status.hotplugVolume !== null &&
      (status.persistentVolumeClaimInfo?.claimName === name ||
        (status.name !== undefined && volumeNames.has(status.name))),
  );
}

/** The name of the VirtualMachine that controls the VMI (its controller ownerReference); undefined for a standalone VMI. */
export function vmNameOfVmi(vmi: VirtualMachineInstance): string | undefined {
  return vmi.metadata?.ownerReferences?.find(
    (owner) => owner.controller === true && owner.kind === 'VirtualMachine',
  )?.name;
}
