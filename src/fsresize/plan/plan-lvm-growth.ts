import { GuestGrowthError } from '../model/guest-growth-error.js';
import type { GuestStep } from '../model/guest-growth-plan.js';
import type { GuestLayout } from '../model/guest-layout.js';
import type { LsblkDevice } from '../parse/parse-lsblk-json.js';
import type { LvmLogicalVolume } from '../parse/parse-lvm-reports.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { toolWithPackages } from './guest-tool-packages.js';

/** The LV that takes the space, its size once grown, and the steps that grow the PV and it. */
export interface LvmGrowth {
  /** lsblk's device of the LV (its /dev/mapper path); null when no LV takes space. */
  logicalVolume: LsblkDevice | null;
  bytesAfter: number;
  steps: GuestStep[];
}

function wholeExtents(bytes: number, extentBytes: number): number {
  return Math.floor(bytes / extentBytes) * extentBytes;
}

/**
 * pvresize on the physical volume `pv` once its device is `deviceBytes`, then `lvextend -l
 * +100%FREE` of the one logical volume of its volume group, which must hold the mounted
 * filesystem (grown by the step after, planFilesystemGrowth). The filesystem is grown by its own
 * step rather than `lvextend --resizefs`: fsadm, which --resizefs runs, does not grow btrfs, and
 * a second run must still grow a filesystem whose LV grew in a run stopped midway, where
 * `lvextend -l +100%FREE` has nothing to take and fails. Refused: several LVs in the group
 * while there is space for them (listed, with the commands to choose one), no LV, a PV that
 * LVM does not report or is in no group, a PV that would shrink, no lvm2 in the guest. pv_size
 * is whole extents after pe_start (lvm2 2.03.16: a 512 MiB device with pe_start 1 MiB and 4 MiB
 * extents reports 532676608 after pvresize), so the PV's target is computed the same way.
 */
export function planLvmGrowth(
  layout: GuestLayout,
  pv: LsblkDevice,
  deviceBytes: number,
): LvmGrowth {
  const lvm = layout.lvm;
  if (lvm === null && !layout.tools.has('pvresize')) {
    throw new GuestGrowthError(
      'GUESTGROW_TOOLS_MISSING',
      `${pv.name} is an LVM physical volume, and the guest lacks ${toolWithPackages('pvresize')}, ${toolWithPackages('lvextend')}`,
      'install them in the guest (apt-get install lvm2; dnf install lvm2) and retry',
      { device: pv.name, missing: ['pvresize', 'lvextend'] },
    );
  }
  const physical = lvm?.pvs.find((candidate) => candidate.name === pv.name);
  if (lvm === null || physical === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `${pv.name} is an LVM physical volume that LVM's reports (pvs, vgs, lvs) do not list`,
      'check that the guest has lvm2 and that pvs lists the volume, then retry',
      { device: pv.name },
    );
  }
  const group = lvm.vgs.find((vg) => vg.name === physical.vg);
  if (group === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `${pv.name} is an LVM physical volume in no volume group, so nothing on it is mounted`,
      'add it to a volume group (vgextend) or grow it by hand',
      { device: pv.name },
    );
  }
  const extent = group.extentBytes;
  const steps: GuestStep[] = [];
  const pvTarget = wholeExtents(deviceBytes - physical.peStartBytes, extent);
  if (pvTarget + extent <= physical.bytes) {
    const [pvSize, target] = formatBytePair(physical.bytes, pvTarget);
    throw new GuestGrowthError(
      'GUESTGROW_WOULD_SHRINK',
      `the physical volume ${pv.name} (${pvSize}) is larger than its device allows (${target})`,
      'check the disk in the guest: was the volume made smaller?',
      { device: pv.name },
    );
  }
  const added = Math.max(0, pvTarget - wholeExtents(physical.bytes, extent));
  if (added > 0) {
    const [from, to] = formatBytePair(physical.bytes, pvTarget);
    steps.push({
      argv: ['pvresize', pv.name],
      why: `grow the LVM physical volume ${pv.name} (volume group ${group.name}) from ${from} to ${to}`,
      expect: {
        reading: 'physical-volume',
        of: pv.name,
        beforeBytes: physical.bytes,
        atLeastBytes: pvTarget,
      },
    });
  }
  const free = wholeExtents(group.freeBytes + added, extent);
  const volumes = lvm.lvs.filter((lv) => lv.vg === group.name);
  if (free > 0 && volumes.length > 1) throw several(pv, group.name, volumes, layout, free);
  // Several LVs and no new space: nothing to give any of them.
  if (volumes.length > 1) return { logicalVolume: null, bytesAfter: 0, steps };
  const only = volumes[0];
  if (only === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `the volume group ${group.name} on ${pv.name} has no logical volume, so nothing on it is mounted`,
      `create a logical volume in ${group.name} and a filesystem on it`,
      { device: pv.name, vg: group.name },
    );
  }
  const device = layout.blockDevices.find((candidate) => candidate.name === only.dmPath);
  if (device === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `the logical volume ${only.path} is not active in the guest (lsblk lists no ${only.dmPath}), so it is not mounted`,
      `activate it (lvchange -ay ${only.path}) and mount its filesystem, then retry`,
      { lv: only.path },
    );
  }
  const bytesAfter = only.bytes + free;
  if (free > 0) {
    const [from, to] = formatBytePair(only.bytes, bytesAfter);
    steps.push({
      argv: ['lvextend', '-l', '+100%FREE', only.path],
      why: `grow the logical volume ${only.path} from ${from} to ${to}: all ${formatBytes(free)} free in ${group.name}, as it is the group's only logical volume`,
      expect: {
        reading: 'logical-volume',
        of: only.path,
        beforeBytes: only.bytes,
        atLeastBytes: bytesAfter,
      },
    });
  }
  return { logicalVolume: device, bytesAfter, steps };
}

function several(
  pv: LsblkDevice,
  vg: string,
  volumes: readonly LvmLogicalVolume[],
  layout: GuestLayout,
  free: number,
): GuestGrowthError {
  const listed = volumes.map((lv) => {
    const mounted = layout.blockDevices.find((d) => d.name === lv.dmPath)?.mountPoint ?? null;
    return `${lv.path}${mounted ? ` (mounted at ${mounted})` : ''}`;
  });
  return new GuestGrowthError(
    'GUESTGROW_SEVERAL_LOGICAL_VOLUMES',
    `the volume group ${vg} on ${pv.name} has ${volumes.length} logical volumes that could take its ${formatBytes(free)} of new space: ${listed.join(', ')}; voe does not choose`,
    `choose in the guest: pvresize ${pv.name}, then lvextend --resizefs -l +100%FREE (or -L +SIZE) on the one that should grow`,
    { device: pv.name, vg, candidates: volumes.map((lv) => lv.path) },
  );
}
