import type { HostVm, JsonPatchOperation, VmDisk, VmVolume } from '../host/host-objects.js';

/** The disk bus of hotplugged guest volumes (KubeVirt hotplugs on SCSI). */
export const HOTPLUG_BUS = 'scsi';

function volumesOf(vm: HostVm): VmVolume[] {
  return vm.spec?.template?.spec?.volumes ?? [];
}

function disksOf(vm: HostVm): VmDisk[] {
  return vm.spec?.template?.spec?.domain?.devices?.disks ?? [];
}

/**
 * The JSON Patch that hotplugs host PVC `volume` into the VM declaratively: guarded by the VM's
 * resourceVersion (`test`), it appends the volume (hotpluggable PVC) and its SCSI disk, each only
 * when missing. Empty when both are there.
 */
export function hotplugOperations(vm: HostVm, volume: string): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  const spec = vm.spec?.template?.spec;
  if (!volumesOf(vm).some((v) => v.name === volume)) {
    const entry = {
      name: volume,
      persistentVolumeClaim: { claimName: volume, hotpluggable: true },
    };
    operations.push(
      spec?.volumes
        ? { op: 'add', path: '/spec/template/spec/volumes/-', value: entry }
        : { op: 'add', path: '/spec/template/spec/volumes', value: [entry] },
    );
  }
  if (!disksOf(vm).some((d) => d.name === volume)) {
    const entry = { name: volume, disk: { bus: HOTPLUG_BUS } };
    operations.push(
      spec?.domain?.devices?.disks
        ? { op: 'add', path: '/spec/template/spec/domain/devices/disks/-', value: entry }
        : { op: 'add', path: '/spec/template/spec/domain/devices/disks', value: [entry] },
    );
  }
  if (operations.length === 0) return [];
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: vm.metadata?.resourceVersion },
    ...operations,
  ];
}

/**
 * The JSON Patch that unplugs `volume` declaratively: the volumes and disks lists replaced by
 * themselves without it, guarded by the VM's resourceVersion. Empty when the VM lists neither.
 */
export function unplugOperations(vm: HostVm, volume: string): JsonPatchOperation[] {
  return unplugAllOperations(vm, [volume]);
}

/**
 * The JSON Patch that unplugs every one of `volumes` at once (the node monitor's release of a dead
 * node's volumes, as Harvester's removeAllHotplugVolumesByPatch): the volumes and disks lists
 * replaced by themselves without them, guarded by the VM's resourceVersion. Empty when the VM
 * lists none of them.
 */
export function unplugAllOperations(vm: HostVm, volumes: readonly string[]): JsonPatchOperation[] {
  const gone = new Set(volumes);
  const listed = volumesOf(vm);
  const disks = disksOf(vm);
  const operations: JsonPatchOperation[] = [];
  if (listed.some((v) => gone.has(v.name ?? '')))
    operations.push({
      op: 'replace',
      path: '/spec/template/spec/volumes',
      value: listed.filter((v) => !gone.has(v.name ?? '')),
    });
  if (disks.some((d) => gone.has(d.name ?? '')))
    operations.push({
      op: 'replace',
      path: '/spec/template/spec/domain/devices/disks',
      value: disks.filter((d) => !gone.has(d.name ?? '')),
    });
  if (operations.length === 0) return [];
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: vm.metadata?.resourceVersion },
    ...operations,
  ];
}

/** KubeVirt's AddVolumeOptions for the legacy `addvolume` subresource. */
export function legacyAddVolumeBody(volume: string): unknown {
  return {
    name: volume,
    disk: { name: '', disk: { bus: HOTPLUG_BUS } },
    volumeSource: { persistentVolumeClaim: { claimName: volume, hotpluggable: true } },
  };
}

/** KubeVirt's RemoveVolumeOptions for the legacy `removevolume` subresource. */
export function legacyRemoveVolumeBody(volume: string): unknown {
  return { name: volume };
}
