import { GuestGrowthError } from '../model/guest-growth-error.js';
import type { GuestGrowthPlan, GuestStep } from '../model/guest-growth-plan.js';
import type { GuestLayout } from '../model/guest-layout.js';
import type { LsblkDevice } from '../parse/parse-lsblk-json.js';
import { packagesOf, toolWithPackages } from './guest-tool-packages.js';
import { planFilesystemGrowth } from './plan-filesystem-growth.js';
import { planLvmGrowth } from './plan-lvm-growth.js';
import { planPartitionGrowth } from './plan-partition-growth.js';

/** Which guest disk to grow: its device in the guest (tied to the VMI disk by the tracker's probe). */
export interface GuestGrowthTarget {
  disk: string;
}

/**
 * The pure plan that grows, inside a Linux guest, what sits on a disk the hypervisor has grown:
 * the last partition (planPartitionGrowth), the LVM physical and logical volume on it
 * (planLvmGrowth), and the mounted filesystem (planFilesystemGrowth), in that order. Each step
 * whose result already holds is left out, so a second run plans nothing. Refused (a
 * GuestGrowthError, nothing run): an encrypted (LUKS) layer, and every refusal of those planners;
 * then, once the steps are known, tools the guest lacks (all of them named, with their packages).
 */
export function planGuestGrowth(layout: GuestLayout, target: GuestGrowthTarget): GuestGrowthPlan {
  try {
    return { kind: 'grow', guest: 'linux', steps: stepsFor(layout, target) };
  } catch (error) {
    if (error instanceof GuestGrowthError) return { kind: 'refuse', error };
    throw error;
  }
}

function stepsFor(layout: GuestLayout, target: GuestGrowthTarget): GuestStep[] {
  const disk = layout.blockDevices.find((device) => device.name === target.disk);
  if (disk === undefined || disk.type === 'part') {
    throw new GuestGrowthError(
      'GUESTGROW_DEVICE_NOT_FOUND',
      `the guest's lsblk lists no disk ${target.disk}`,
      'check that the disk is attached to the guest and retry once the guest shows it',
      { disk: target.disk },
    );
  }
  const partitioned =
    disk.partitionTable !== null ||
    disk.children.some((name) => layout.blockDevices.find((d) => d.name === name)?.type === 'part');
  let holder = disk;
  let holderBytes = disk.bytes;
  const steps: GuestStep[] = [];
  let missingPartitioner = false;
  if (partitioned) {
    const growth = planPartitionGrowth(layout, disk);
    holder = growth.partition;
    holderBytes = growth.bytesAfter;
    steps.push(...growth.steps);
    missingPartitioner = growth.missingPartitioner;
  }
  steps.push(...contentSteps(layout, holder, holderBytes));
  requireTools(layout, steps, missingPartitioner);
  return steps;
}

/** What grows on the partition or disk: LVM, or a filesystem; never through a LUKS layer. */
function contentSteps(layout: GuestLayout, device: LsblkDevice, deviceBytes: number): GuestStep[] {
  refuseEncrypted(layout, device);
  if (device.fstype === 'LVM2_member') {
    const lvm = planLvmGrowth(layout, device, deviceBytes);
    if (lvm.logicalVolume === null) return lvm.steps;
    refuseEncrypted(layout, lvm.logicalVolume);
    return [...lvm.steps, ...planFilesystemGrowth(layout, lvm.logicalVolume, lvm.bytesAfter)];
  }
  return planFilesystemGrowth(layout, device, deviceBytes);
}

function refuseEncrypted(layout: GuestLayout, device: LsblkDevice): void {
  const mapping = device.children
    .map((name) => layout.blockDevices.find((d) => d.name === name))
    .find((child) => child?.type === 'crypt');
  if (device.fstype !== 'crypto_LUKS' && mapping === undefined) return;
  throw new GuestGrowthError(
    'GUESTGROW_ENCRYPTED',
    `${device.name} holds an encrypted (LUKS) layer${mapping ? ` (opened as ${mapping.name})` : ''}; growing what is inside needs the open mapping resized (cryptsetup resize), which may ask for its key, and voe does not handle keys`,
    `grow it in the guest: the partition or volume first, then cryptsetup resize ${mapping?.name ?? 'NAME'}, then the filesystem inside`,
    { device: device.name },
  );
}

/** Every tool the steps run must be in the guest; all missing ones are named at once. */
function requireTools(
  layout: GuestLayout,
  steps: readonly GuestStep[],
  missingPartitioner: boolean,
): void {
  const missing = [
    ...new Set(
      steps
        .map((step) => step.argv[0] ?? '')
        .filter((tool) => !layout.tools.has(tool) && !(missingPartitioner && tool === 'growpart')),
    ),
  ];
  const named = missing.map(toolWithPackages);
  if (missingPartitioner) {
    named.unshift(`${toolWithPackages('growpart')} or ${toolWithPackages('sfdisk')}`);
  }
  if (named.length === 0) return;
  const packages = packagesOf(missingPartitioner ? ['growpart', ...missing] : missing);
  throw new GuestGrowthError(
    'GUESTGROW_TOOLS_MISSING',
    `the guest lacks ${named.join(', ')}`,
    `install them in the guest (apt-get install ${packages.debian.join(' ')}; dnf install ${packages.rhel.join(' ')}) and retry`,
    { missing: missingPartitioner ? ['growpart|sfdisk', ...missing] : missing },
  );
}
