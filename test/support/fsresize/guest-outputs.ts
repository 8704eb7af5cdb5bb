/**
 * The outputs of a Linux guest's own tools, printed in the shape util-linux 2.38 and lvm2 2.03
 * (Debian bookworm) print them, for the guest-growth parsers and plan. Sizes are computed the
 * way the tools compute them: lsblk's SIZE is the kernel's size of the device; sfdisk's lastlba
 * on GPT is the disk's sectors less 34 when the table was written (the backup header and its
 * 32-sector entry array at the end), and stays there when the disk grows until the backup header
 * is moved.
 */

/** One device as lsblk --json --bytes --paths -o NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE prints it. */
export interface LsblkNode {
  name: string;
  kname?: string;
  type: string;
  size: number;
  fstype?: string | null;
  mountpoint?: string | null;
  pttype?: string | null;
  children?: LsblkNode[];
}

function lsblkObject(node: LsblkNode, parent: string | null): Record<string, unknown> {
  const kname = node.kname ?? node.name;
  return {
    name: node.name,
    kname,
    pkname: parent,
    type: node.type,
    size: node.size,
    fstype: node.fstype ?? null,
    mountpoint: node.mountpoint ?? null,
    pttype: node.pttype ?? null,
    ...(node.children ? { children: node.children.map((child) => lsblkObject(child, kname)) } : {}),
  };
}

/** lsblk's JSON (it indents by 3 spaces). */
export function lsblkOutput(...disks: LsblkNode[]): string {
  return `${JSON.stringify({ blockdevices: disks.map((disk) => lsblkObject(disk, null)) }, null, 3)}\n`;
}

export interface SfdiskEntry {
  number: number;
  start: number;
  size: number;
  type?: string;
}

/** sfdisk --json DISK for a GPT table (lastlba as recorded) or an MBR (dos) one, 512-byte sectors. */
export function sfdiskOutput(
  disk: string,
  label: 'gpt' | 'dos',
  partitions: SfdiskEntry[],
  lastLba?: number,
): string {
  const node = (n: number): string => (/\d$/.test(disk) ? `${disk}p${n}` : `${disk}${n}`);
  const table: Record<string, unknown> = {
    label,
    id: label === 'gpt' ? 'E07EB532-85A9-9148-9F2C-F8DC1FA29227' : '0xc9a6a04c',
    device: disk,
    unit: 'sectors',
    ...(label === 'gpt' ? { firstlba: 2048, lastlba: lastLba } : {}),
    sectorsize: 512,
    partitions: partitions.map((p) => ({
      node: node(p.number),
      start: p.start,
      size: p.size,
      type: p.type ?? (label === 'gpt' ? '0FC63DAF-8483-4772-8E79-3D69D8477DE4' : '83'),
      ...(label === 'gpt' ? { uuid: '8D8AB3BD-C629-A849-BADB-A68999CB35A5' } : {}),
    })),
  };
  return `${JSON.stringify({ partitiontable: table }, null, 3)}\n`;
}

/** The last usable sector sfdisk writes in a new GPT on a disk of `bytes` (512-byte sectors). */
export function gptLastLba(bytes: number): number {
  return bytes / 512 - 34;
}

/** pvs/vgs/lvs --reportformat json --units b --nosuffix: every value a string, as lvm2 prints them. */
export function lvmReport(kind: 'pv' | 'vg' | 'lv', rows: Array<Record<string, string>>): string {
  return `  ${JSON.stringify({ report: [{ [kind]: rows }] }, null, 6)}\n`;
}

export const GiB = 1024 ** 3;
export const MiB = 1024 ** 2;

/** What mkfs leaves of a device: whole blocks (ext4, xfs and btrfs here use 4 KiB blocks). */
export function mkfsBytes(deviceBytes: number, blockBytes = 4096): number {
  return Math.floor(deviceBytes / blockBytes) * blockBytes;
}
