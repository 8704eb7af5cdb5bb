import type { VirtualMachineInstance } from '../../model/index.js';
import { GuestRunError } from '../guest-run-error.js';

/** The VMI disk to grow: its volume (and claim) and the target the hypervisor gives it. */
export interface VmiDiskChoice {
  volumeName: string;
  claimName: string;
  target: string;
}

/**
 * The VMI disk named `disk` (spec.domain.devices.disks[].name), or, without a name, the VMI's only
 * disk on a PVC or DataVolume; its target from status.volumeStatus. GUESTRUN_DISK_NOT_FOUND,
 * listing the candidates, when there is no such disk, several without a name, or no target yet.
 * Pure.
 */
export function chooseVmiDisk(
  vmi: VirtualMachineInstance,
  disk: string | undefined,
): VmiDiskChoice {
  const volumes = vmi.spec?.volumes ?? [];
  const claimOf = (name: string): string | undefined => {
    const volume = volumes.find((v) => v.name === name);
    return volume?.persistentVolumeClaim?.claimName ?? volume?.dataVolume?.name;
  };
  const names = (vmi.spec?.domain?.devices?.disks ?? []).flatMap((d) => (d.name ? [d.name] : []));
  const candidates = names.filter((name) => claimOf(name) !== undefined);
  const listed = candidates.length > 0 ? candidates.join(', ') : 'none';
  const chosen = disk ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (chosen === undefined)
    throw new GuestRunError(
      'GUESTRUN_DISK_NOT_FOUND',
      `the VMI has ${candidates.length === 0 ? 'no disk on a PVC' : `several disks on PVCs (${listed})`}: give --disk NAME`,
      { details: { candidates } },
    );
  const claimName = claimOf(chosen);
  if (!names.includes(chosen) || claimName === undefined)
    throw new GuestRunError(
      'GUESTRUN_DISK_NOT_FOUND',
      `the VMI has no disk ${JSON.stringify(chosen)} on a PVC; its disks on PVCs: ${listed}`,
      { details: { candidates } },
    );
  const target = (vmi.status?.volumeStatus ?? []).find((s) => s.name === chosen)?.target;
  if (!target)
    throw new GuestRunError(
      'GUESTRUN_DISK_NOT_FOUND',
      `the VMI's volumeStatus gives disk ${chosen} no target (vda, sdb...) yet; retry once the VM has attached it`,
      { details: { disk: chosen } },
    );
  return { volumeName: chosen, claimName, target };
}
