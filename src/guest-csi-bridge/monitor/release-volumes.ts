import type { Logger } from '../../log/index.js';
import { hotplugModeOf } from '../controller/hotplug-mode-of.js';
import { legacyRemoveVolumeBody, unplugAllOperations } from '../controller/hotplug-requests.js';
import { isCsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';

/**
 * Unplugs `volumes` from the VM `vm` on the host, as Harvester's removeAllHotplugVolumes: the VM
 * read again first (never a stale spec), then, by the host's hotplug mode, one JSON Patch that
 * drops them all from the VM's volumes and disks guarded by its resourceVersion
 * (removeAllHotplugVolumesByPatch), or KubeVirt's legacy `removevolume` for each
 * (removeAllHotplugVolumesBySubresource). Returns the volumes it unplugged (those the VM still
 * listed); a VM changed meanwhile rejects, and the monitor decides again.
 */
export async function releaseVolumes(
  host: HostApi,
  vm: string,
  volumes: readonly string[],
  log: Logger,
): Promise<string[]> {
  const current = await host.getVm(vm);
  const listed = new Set((current?.spec?.template?.spec?.volumes ?? []).map((v) => v.name));
  const present = volumes.filter((name) => listed.has(name));
  if (!current || present.length === 0) return [];
  const mode = await hotplugModeOf(host, log);
  if (mode === 'declarative') {
    await host.patchVm(vm, unplugAllOperations(current, present));
    return present;
  }
  for (const name of present)
    await host.removeVolumeLegacy(vm, legacyRemoveVolumeBody(name)).catch((error: unknown) => {
      // Gone from the VM meanwhile: nothing to remove.
      if (isCsiError(error, 'CSI_HOST_REQUEST_FAILED') && error.details['httpStatus'] === 404)
        return;
      throw error;
    });
  return present;
}
