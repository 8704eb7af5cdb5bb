import type { PersistentVolumeClaim, VirtualMachine, VmVolume } from './kube-objects.js';

/** VM annotation listing the PVCs Harvester creates for the VM (a JSON list of PVC objects). */
export const VOLUME_CLAIM_TEMPLATES_ANNOTATION = 'harvesterhci.io/volumeClaimTemplates';

/**
 * The PVC objects in the VM's volumeClaimTemplates annotation. Harvester writes the annotation
 * itself; an absent, empty or malformed one lists nothing (as Harvester's index skips it).
 */
export function volumeClaimTemplatesOf(vm: VirtualMachine): PersistentVolumeClaim[] {
  const text = vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((entry): entry is PersistentVolumeClaim => entry !== null && typeof entry === 'object');
  } catch {
    return [];
  }
}

/** The PVC name a VM volume uses: persistentVolumeClaim.claimName or dataVolume.name (a DataVolume's PVC has its name). */
export function claimNameOf(volume: VmVolume): string | undefined {
  return volume.persistentVolumeClaim?.claimName ?? volume.dataVolume?.name;
}

/** The template volumes of the VM that use the PVC `name` (same namespace as the VM). */
export function vmVolumesUsing(vm: VirtualMachine, name: string): VmVolume[] {
  return (vm.spec?.template?.spec?.volumes ?? []).filter((volume) => claimNameOf(volume) === name);
}

/** True when the VM hotplugs the PVC `name` (persistentVolumeClaim or dataVolume hotpluggable: true). */
export function vmHotplugs(vm: VirtualMachine, name: string): boolean {
  return vmVolumesUsing(vm, name).some((volume) =>
    volume.persistentVolumeClaim?.hotpluggable === true || volume.dataVolume?.hotpluggable === true);
}

/**
 * Every "namespace/name" PVC key the VM uses: template volumes and volumeClaimTemplates entries,
 * all in the VM's namespace. This is the index function for "VMs by PVC" caches.
 */
export function pvcKeysOfVm(vm: VirtualMachine): string[] {
  const namespace = vm.metadata?.namespace ?? '';
  const names = new Set<string>();
  for (const volume of vm.spec?.template?.spec?.volumes ?? []) {
    const name = claimNameOf(volume);
    if (name) names.add(name);
  }
  for (const template of volumeClaimTemplatesOf(vm)) {
    if (template.metadata?.name) names.add(template.metadata.name);
  }
  return [...names].map((name) => `${namespace}/${name}`);
}

/** True when the VM uses the PVC `namespace/name` (template volume or volumeClaimTemplates). */
export function vmUsesPvc(vm: VirtualMachine, namespace: string, name: string): boolean {
  return pvcKeysOfVm(vm).includes(`${namespace}/${name}`);
}

/**
 * Harvester's notion of a running VM: `status.printableStatus != "Stopped"`, so Starting,
 * Paused, Migrating, errors... and a VM with no printableStatus yet all count as running
 * (a VM nobody has reconciled may start any moment; refusing online rules is the safe side).
 */
export function isVmRunning(vm: VirtualMachine): boolean {
  return vm.status?.printableStatus !== 'Stopped';
}
