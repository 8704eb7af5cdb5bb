import type { DeviceOpener, DeviceUsers } from '../model/block-devices.js';
import type { Inspection } from '../model/inspection.js';
import type { GrowPlan, PlanOptions } from '../model/grow-plan.js';
import { refusePlan } from './refuse-plan.js';

/**
 * An unmounted ext filesystem is grown (and checked) offline, by writing to the device: only when
 * nothing else uses the device. A program that has it open may have the filesystem mounted
 * where voe cannot see it (a VM's disk, mounted inside the guest; a mount in another node's or
 * container's view of a shared device): resize2fs and e2fsck under it would corrupt it. Their own
 * guard (an exclusive open) only finds mounts and other exclusive openers. Null when nothing
 * is seen to use it.
 */
export function usedElsewhere(inspection: Inspection, options: PlanOptions): GrowPlan | null {
  const { device, filesystem, users } = inspection;
  if (users === null) {
    return refusePlan(
      'FSRESIZE_DEVICE_IN_USE',
      `${filesystem} on ${device} is not mounted where voe can use it, and who else uses the device was not looked for; nothing was changed — retry`,
    );
  }
  return (
    openedElsewhere(inspection, users) ??
    stackedOn(inspection, users) ??
    sharedBacking(inspection, users) ??
    unseenProcesses(inspection, users, options)
  );
}

/** What the device or its users' view of it is called in the refusals: it, or it and its whole disk. */
function targetOf(users: DeviceUsers): string {
  return users.disk === null ? 'the device' : `the device or its whole disk (${users.disk})`;
}

/** The backing devices under a loop device (see DeviceUsers.backing). */
function backingDevicesOf(users: DeviceUsers) {
  return (users.backing ?? []).filter((b) => b.kind === 'device');
}

/** Other processes have the device, its whole disk, or what lies under it open. */
function openedElsewhere(inspection: Inspection, users: DeviceUsers): GrowPlan | null {
  const { device, filesystem } = inspection;
  const { openedBy } = users;
  if (openedBy.length === 0) return null;
  const backingDevices = backingDevicesOf(users);
  const what = (opener: DeviceOpener): string => {
    if (opener.backingFile !== undefined) return ` with the backing file ${opener.backingFile}`;
    if (opener.majorMinor === inspection.majorMinor) return '';
    const below = backingDevices.find((b) => b.majorMinor === opener.majorMinor);
    return below === undefined
      ? ` with its whole disk ${opener.majorMinor}`
      : ` with the backing device ${below.path}`;
  };
  const who =
    openedBy
      .slice(0, 5)
      .map((p) => `pid ${p.pid} (${p.command}${what(p)})`)
      .join(', ') + (openedBy.length > 5 ? ` and ${openedBy.length - 5} more` : '');
  const below = openedBy.some(
    (p) => p.backingFile !== undefined || backingDevices.some((b) => b.majorMinor === p.majorMinor),
  );
  return refusePlan(
    'FSRESIZE_DEVICE_IN_USE',
    `${filesystem} on ${device} is not mounted here, but ${who} ${openedBy.length === 1 ? 'has' : 'have'} ${targetOf(users)}${below ? ' or the backing file or device under it' : ''} open: growing it offline while another program uses it (e.g. a VM whose guest has it mounted) would corrupt it; nothing was changed — grow it where it is in use (e.g. inside the guest), or stop that program and retry; voe sees the processes of its own PID namespace only`,
  );
}

/** Kernel devices are stacked on the device, its whole disk or a backing device. */
function stackedOn(inspection: Inspection, users: DeviceUsers): GrowPlan | null {
  const { device, filesystem } = inspection;
  const { holders } = users;
  if (holders.length === 0) return null;
  const under = [
    targetOf(users),
    ...backingDevicesOf(users).map((b) => `the backing device ${b.path}`),
  ].join(' or ');
  return refusePlan(
    'FSRESIZE_DEVICE_IN_USE',
    `${filesystem} on ${device} is not mounted here, but ${holders.join(', ')} ${holders.length === 1 ? 'is' : 'are'} stacked on ${under} (device-mapper, RAID, loop): writing to it underneath would corrupt what they show; nothing was changed — grow the device on top instead`,
  );
}

/** What a loop device shows may be in use another way: unseen, attached twice, or busy. */
function sharedBacking(inspection: Inspection, users: DeviceUsers): GrowPlan | null {
  const { device, filesystem } = inspection;
  for (const below of users.backing ?? []) {
    // The device itself, or (for a partition, or a loop device over a loop device) which one.
    const of = inspection.devicePath === `/dev/${below.loop}` ? '' : ` (of ${below.loop})`;
    const what = `${below.kind === 'device' ? 'backing device' : 'backing file'} ${below.path}${of}`;
    if (below.kind === 'unknown') {
      return refusePlan(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but what it shows lies in ${below.path}${of}, which does not lead to a file or device here (deleted, or the loop device was set up in another mount namespace): voe cannot see what else uses that data, and growing it offline under another user would corrupt it; nothing was changed — grow it from the mount namespace that set it up`,
      );
    }
    if (below.sharedWith.length > 0) {
      return refusePlan(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but its ${what} is also attached as ${below.sharedWith.map((name) => `/dev/${name}`).join(', ')}, which ${below.sharedWith.length === 1 ? 'shows' : 'show'} the same data (mounted or used there, it would be corrupted by an offline grow here); nothing was changed — detach the other loop device${below.sharedWith.length === 1 ? '' : 's'} (losetup -d) if unused, or grow the filesystem where it is in use`,
      );
    }
    if (below.busy) {
      return refusePlan(
        'FSRESIZE_DEVICE_IN_USE',
        `${filesystem} on ${device} is not mounted here, but its ${what} is in use by the kernel (mounted, perhaps in another mount namespace, or claimed by device-mapper or RAID; an exclusive open of it was refused): growing it offline underneath would corrupt it; nothing was changed — grow the filesystem where it is mounted`,
      );
    }
  }
  return null;
}

/**
 * Processes voe cannot see (another PID namespace) or whose open files it may not read may use
 * the device: "could not look" is never taken as "nobody", unless the caller says to ignore them.
 */
function unseenProcesses(
  inspection: Inspection,
  users: DeviceUsers,
  options: PlanOptions,
): GrowPlan | null {
  const { device, filesystem } = inspection;
  const { unreadable } = users;
  if (options.unreadableProcesses === 'ignore') return null;
  if (users.processesHidden === true) {
    return refusePlan(
      'FSRESIZE_PERMISSION_DENIED',
      `${filesystem} on ${device} is not mounted here, and voe cannot see the node's other processes: it runs in a PID namespace of its own (e.g. a container without hostPID), whose /proc lists only that namespace's processes. ` +
        'Any program outside it may use the device, and growing it offline under a program that uses it would corrupt it; nothing was changed — run voe in the host PID namespace ' +
        '(hostPID: true, or on the node itself), or, only if you know no other program uses the device, pass --ignore-unreadable-processes or set VOE_IGNORE_UNREADABLE_PROCESSES=1 (the FlexVolume driver takes no flags)',
    );
  }
  if (unreadable.length === 0) return null;
  const who =
    unreadable
      .slice(0, 5)
      .map((p) => `pid ${p.pid} (${p.command})`)
      .join(', ') + (unreadable.length > 5 ? ` and ${unreadable.length - 5} more` : '');
  return refusePlan(
    'FSRESIZE_PERMISSION_DENIED',
    `${filesystem} on ${device} is not mounted here, and the kernel would not show voe which files ${who} ${unreadable.length === 1 ? 'has' : 'have'} open ` +
      '(voe lacks CAP_SYS_PTRACE, or those processes have capabilities voe lacks): any of them may use the device, and growing it offline under a program that uses it would corrupt it; ' +
      'nothing was changed — run voe as root with every capability (as kubelet runs FlexVolume drivers), or, only if you know these processes do not use the device, pass --ignore-unreadable-processes or set VOE_IGNORE_UNREADABLE_PROCESSES=1 (the FlexVolume driver takes no flags)',
    { unreadable },
  );
}
