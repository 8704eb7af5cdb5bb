/**
 * The five layouts of docs/guest-growth.md, built in a running lab guest on one of its disks with
 * the guest's own tools through the agent (argument lists; sfdisk's script is data on its
 * standard input): mkfs, a partition table, LVM, a mount under /mnt, and a file of random data
 * whose checksum must survive the growth.
 */
import type { LabVm } from '../../../src/demo/index.js';
import { labGuestOutput, type LabGuestCommand } from './lab-guest-commands.js';

export type LabFilesystem = 'ext4' | 'xfs' | 'btrfs';

/**
 * - `unpartitioned`: the filesystem on the whole disk;
 * - `gpt`, `mbr`: one partition over the disk, the filesystem on it;
 * - `lvm`: one GPT partition, a PV on it, a VG, one LV over all of it, the filesystem on the LV;
 * - `not-last`: a GPT partition of 256 MiB holding the filesystem, a second one after it (refused).
 */
export type LabLayoutKind = 'unpartitioned' | 'gpt' | 'mbr' | 'lvm' | 'not-last';

export interface LabLayout {
  kind: LabLayoutKind;
  filesystem: LabFilesystem;
  /** The guest's disk, e.g. /dev/sda. */
  disk: string;
  /** The device holding the filesystem, as lsblk --paths names it. */
  device: string;
  mountPoint: string;
  /** The data file's path and its md5sum line. */
  dataFile: string;
  checksum: string;
}

/** A partition's node: sda -> sda1, nvme0n1 -> nvme0n1p1 (the kernel's naming). */
export function partitionNode(disk: string, number: number): string {
  return /\d$/.test(disk) ? `${disk}p${number}` : `${disk}${number}`;
}

function mkfs(filesystem: LabFilesystem, device: string): LabGuestCommand {
  if (filesystem === 'ext4') return { argv: ['mkfs.ext4', '-q', '-F', device] };
  if (filesystem === 'xfs') return { argv: ['mkfs.xfs', '-q', '-f', device] };
  return { argv: ['mkfs.btrfs', '-q', '-f', device] };
}

/** sfdisk's script for each partitioned layout (`,` alone: the rest of the disk). */
const TABLES: Partial<Record<LabLayoutKind, string>> = {
  gpt: 'label: gpt\n,\n',
  mbr: 'label: dos\n,\n',
  lvm: 'label: gpt\n,\n',
  'not-last': 'label: gpt\n,256MiB\n,\n',
};

/** Builds `kind` with `filesystem` on `disk` (its name suffixes the VG and the mount point). */
export async function buildLabLayout(
  vm: LabVm,
  kind: LabLayoutKind,
  filesystem: LabFilesystem,
  disk: string,
): Promise<LabLayout> {
  const name = disk.slice('/dev/'.length);
  const run = (command: LabGuestCommand): Promise<string> => labGuestOutput(vm, command);
  const table = TABLES[kind];
  let device = disk;
  if (table !== undefined) {
    await run({ argv: ['sfdisk', '--quiet', disk], stdin: table });
    device = partitionNode(disk, 1);
  }
  if (kind === 'lvm') {
    const vg = `vg-${name}`;
    await run({ argv: ['pvcreate', '--quiet', '--yes', device] });
    await run({ argv: ['vgcreate', '--quiet', vg, device] });
    await run({ argv: ['lvcreate', '--quiet', '--yes', '-n', 'data', '-l', '100%FREE', vg] });
    // libdevmapper makes the node itself when no udev runs; lsblk names it /dev/mapper/<vg>-<lv> (dashes doubled).
    device = `/dev/mapper/${vg.replaceAll('-', '--')}-data`;
  }
  await run(mkfs(filesystem, device));
  const mountPoint = `/mnt/${kind}-${name}`;
  await run({ argv: ['mkdir', '-p', mountPoint] });
  await run({ argv: ['mount', '-t', filesystem, device, mountPoint] });
  const dataFile = `${mountPoint}/data`;
  await run({ argv: ['dd', 'if=/dev/urandom', `of=${dataFile}`, 'bs=1M', 'count=4'] });
  await run({ argv: ['sync'] });
  const checksum = (await run({ argv: ['md5sum', dataFile] })).trim();
  // udev has read the new table and filesystems (what lsblk reports) before the layout is used.
  await run({ argv: ['udevadm', 'settle', '--timeout=30'] });
  return { kind, filesystem, disk, device, mountPoint, dataFile, checksum };
}
