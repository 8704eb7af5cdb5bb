import { GuestGrowthError } from '../model/guest-growth-error.js';
import type { GuestStep } from '../model/guest-growth-plan.js';
import type { GuestLayout } from '../model/guest-layout.js';
import type { LsblkDevice } from '../parse/parse-lsblk-json.js';
import type { SfdiskPartition } from '../parse/parse-sfdisk-json.js';
import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { PARTITION_SLACK_BYTES, partitionUsableEnd } from './partition-usable-end.js';

/** The partition that holds what is grown, its size once grown, and the steps that grow it. */
export interface PartitionGrowth {
  partition: LsblkDevice;
  bytesAfter: number;
  steps: GuestStep[];
  /** Set when the guest has neither growpart nor sfdisk and the partition must grow. */
  missingPartitioner: boolean;
}

/** The device lsblk lists under `name`, or undefined. */
function deviceNamed(layout: GuestLayout, name: string): LsblkDevice | undefined {
  return layout.blockDevices.find((device) => device.name === name);
}

/** True when the device, or anything stacked on it (an LV, a LUKS mapping), is mounted. */
export function mountedUnder(
  layout: GuestLayout,
  device: LsblkDevice,
  seen = new Set<string>(),
): boolean {
  if (device.mountPoint !== null && device.mountPoint !== '[SWAP]') return true;
  seen.add(device.name);
  return device.children.some((name) => {
    const child = deviceNamed(layout, name);
    return child !== undefined && !seen.has(name) && mountedUnder(layout, child, seen);
  });
}

/**
 * The steps that grow the last partition of `disk` into the free space that follows it up to the
 * disk's end (see partitionUsableEnd), and tell the kernel. Only the last partition, and only when
 * what it holds is mounted (or nothing else is): a filesystem on an earlier partition is refused,
 * as is a logical partition of an MBR extended one, a table other than GPT or MBR, and a table
 * that reaches past the disk (a shrink). The table is rewritten by growpart where the guest has
 * it, else by sfdisk (`sfdisk --relocate gpt-bak-std` first on GPT, then `sfdisk -N` with the
 * script `, +` on its standard input); the kernel is told by `partx --update --nr N`, else by
 * resizepart: never by a reboot.
 */
export function planPartitionGrowth(layout: GuestLayout, disk: LsblkDevice): PartitionGrowth {
  const table = layout.partitionTables[disk.name];
  if (table === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `${disk.name} holds a partition table that was not read (sfdisk --json ${disk.name})`,
      'check that the guest has sfdisk (Debian: fdisk, RHEL: util-linux) and retry',
      { disk: disk.name },
    );
  }
  if (table.label !== 'gpt' && table.label !== 'dos') {
    throw new GuestGrowthError(
      'GUESTGROW_UNSUPPORTED_LAYOUT',
      `${disk.name} holds a ${table.label} partition table; voe grows partitions on GPT and MBR (dos) only`,
      'grow the partition in the guest by hand',
      { disk: disk.name, label: table.label },
    );
  }
  const ordered = [...table.partitions].sort((a, b) => a.start - b.start);
  const last = ordered.at(-1);
  if (last === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_NOT_MOUNTED',
      `${disk.name} holds ${table.label === 'gpt' ? 'a GPT' : 'an MBR'} partition table with no partition, so nothing on it is mounted`,
      'create a partition and a filesystem in the guest',
      { disk: disk.name },
    );
  }
  const lastDevice = deviceNamed(layout, last.node);
  if (lastDevice === undefined) {
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `the guest's kernel lists no ${last.node}, the last partition in ${disk.name}'s table`,
      `have the guest's kernel read the table (partx --update ${disk.name}) and retry`,
      { disk: disk.name, partition: last.node },
    );
  }
  if (!mountedUnder(layout, lastDevice)) {
    const earlier = ordered.find((p) => {
      const device = deviceNamed(layout, p.node);
      return p !== last && device !== undefined && mountedUnder(layout, device);
    });
    if (earlier !== undefined) throw notLast(disk, earlier, last);
  }
  if (table.label === 'dos' && last.number > 4) {
    throw new GuestGrowthError(
      'GUESTGROW_UNSUPPORTED_LAYOUT',
      `${last.node} is a logical partition inside an extended one on ${disk.name}'s MBR table: the extended partition would have to grow first`,
      `grow the extended partition, then ${last.node}, in the guest by hand (e.g. with parted or fdisk)`,
      { disk: disk.name, partition: last.node },
    );
  }
  return growLast(layout, disk, last, lastDevice);
}

function notLast(
  disk: LsblkDevice,
  holder: SfdiskPartition,
  last: SfdiskPartition,
): GuestGrowthError {
  return new GuestGrowthError(
    'GUESTGROW_NOT_LAST_PARTITION',
    `the mounted filesystem of ${disk.name} is on ${holder.node}, which is not its last partition (${last.node} follows it), and a partition grows only into the free space after it`,
    `move or remove ${last.node} (offline, with its data saved), or use the new space as a new partition after ${last.node}`,
    { disk: disk.name, partition: holder.node, last: last.node },
  );
}

function growLast(
  layout: GuestLayout,
  disk: LsblkDevice,
  last: SfdiskPartition,
  lastDevice: LsblkDevice,
): PartitionGrowth {
  const table = layout.partitionTables[disk.name]!;
  const sector = table.sectorBytes;
  const usableEnd = partitionUsableEnd(table, disk.bytes, last.start);
  const end = last.start + last.size - 1;
  if (end > usableEnd) {
    const [tableSize, diskSize] = formatBytePair((end + 1) * sector, disk.bytes);
    throw new GuestGrowthError(
      'GUESTGROW_WOULD_SHRINK',
      `${last.node} ends at ${tableSize} into ${disk.name}, past where a partition may end on a disk of ${diskSize}: fitting it would shrink it`,
      'check the disk in the guest: was the volume made smaller than its partition table?',
      { disk: disk.name, partition: last.node, endSector: end, usableEndSector: usableEnd },
    );
  }
  const steps: GuestStep[] = [];
  const grows = (usableEnd - end) * sector >= PARTITION_SLACK_BYTES;
  const size = grows ? usableEnd - last.start + 1 : last.size;
  const bytesAfter = size * sector;
  const number = String(last.number);
  let missingPartitioner = false;
  if (grows) {
    const [from, to] = formatBytePair(last.size * sector, bytesAfter);
    const why = `grow partition ${last.number} (${last.node}) from ${from} to ${to}, into the ${formatBytes((usableEnd - end) * sector)} that follow it up to the end of ${disk.name}`;
    const expect = {
      reading: 'partition' as const,
      of: last.node,
      beforeBytes: last.size * sector,
      atLeastBytes: bytesAfter - PARTITION_SLACK_BYTES + sector,
    };
    if (layout.tools.has('growpart') || !layout.tools.has('sfdisk')) {
      missingPartitioner = !layout.tools.has('growpart');
      steps.push({
        argv: ['growpart', disk.name, number],
        why: `${why} (growpart${table.label === 'gpt' ? " moves the backup GPT header to the disk's end first" : ''})`,
        expect,
      });
    } else {
      if (table.label === 'gpt' && (table.lastLba ?? usableEnd) < usableEnd) {
        steps.push({
          argv: ['sfdisk', '--relocate', 'gpt-bak-std', disk.name],
          why: `move the backup GPT header of ${disk.name} to the disk's new end, so that partitions may use the space before it`,
          expect: {
            reading: 'table-end',
            of: disk.name,
            beforeBytes: ((table.lastLba ?? 0) + 1) * sector,
            atLeastBytes: (usableEnd + 1) * sector,
          },
        });
      }
      const capped = table.label === 'dos' && usableEnd < Math.floor(disk.bytes / sector) - 1;
      steps.push({
        argv: ['sfdisk', '--no-reread', '--no-tell-kernel', '-N', number, disk.name],
        // ", +": keep the start, take the largest size; an MBR partition stops at 2^32-1 sectors.
        stdin: capped ? `, ${size}\n` : ', +\n',
        why: `${why}${capped ? ' (the most an MBR partition can hold: 2^32-1 sectors)' : ''}`,
        expect,
      });
    }
  }
  if (grows || lastDevice.bytes < bytesAfter) {
    steps.push(tellKernel(layout, disk, last, lastDevice, bytesAfter, sector));
  }
  return { partition: lastDevice, bytesAfter, steps, missingPartitioner };
}

/** partx --update --nr N DISK, else resizepart DISK N SECTORS (512-byte sectors, as the ioctl counts). */
function tellKernel(
  layout: GuestLayout,
  disk: LsblkDevice,
  last: SfdiskPartition,
  lastDevice: LsblkDevice,
  bytesAfter: number,
  sector: number,
): GuestStep {
  const number = String(last.number);
  const argv =
    layout.tools.has('partx') || !layout.tools.has('resizepart')
      ? ['partx', '--update', '--nr', number, disk.name]
      : ['resizepart', disk.name, number, String(bytesAfter / 512)];
  return {
    argv,
    why: `tell the guest's kernel that ${last.node} is now ${formatBytes(bytesAfter)} (no reboot)`,
    expect: {
      reading: 'kernel',
      of: lastDevice.name,
      beforeBytes: lastDevice.bytes,
      atLeastBytes: bytesAfter - PARTITION_SLACK_BYTES + sector,
    },
  };
}
