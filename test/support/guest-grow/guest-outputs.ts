/**
 * What a Debian bookworm guest's tools print, in their real shapes (util-linux 2.38.1 lsblk and
 * sfdisk --json, e2fsprogs 1.47 dumpe2fs -h, lvm2 2.03.16 --reportformat json), made from the few
 * numbers a test gives. Only the fields voe reads vary; the others are as the tools print them.
 */

/** One device of lsblk's tree. */
export interface LsblkNode {
  name: string;
  type: string;
  size: number;
  fstype?: string;
  mountpoint?: string;
  pttype?: string;
  children?: LsblkNode[];
}

function lsblkEntry(node: LsblkNode, parent: string | null): Record<string, unknown> {
  return {
    name: node.name,
    kname: node.name.startsWith('/dev/mapper/') ? '/dev/dm-0' : node.name,
    pkname: parent,
    type: node.type,
    size: node.size,
    fstype: node.fstype ?? null,
    mountpoint: node.mountpoint ?? null,
    pttype: node.pttype ?? null,
    ...(node.children
      ? { children: node.children.map((child) => lsblkEntry(child, node.name)) }
      : {}),
  };
}

/** `lsblk --json --bytes --paths --output NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE`. */
export function lsblkJson(...disks: LsblkNode[]): string {
  return `${JSON.stringify({ blockdevices: disks.map((disk) => lsblkEntry(disk, null)) }, null, 3)}\n`;
}

/** `sfdisk --json DISK` of a GPT (lastLba given) or MBR (dos) table. */
export function sfdiskJson(table: {
  device: string;
  label: 'gpt' | 'dos';
  lastLba?: number;
  partitions: Array<{ number: number; start: number; size: number }>;
}): string {
  const gpt = table.label === 'gpt';
  return `${JSON.stringify(
    {
      partitiontable: {
        label: table.label,
        id: gpt ? '4C1B8E9B-5E42-4F4B-9D1E-6C7A4B2E1F30' : '0x8d3c1f2a',
        device: table.device,
        unit: 'sectors',
        ...(gpt ? { firstlba: 2048, lastlba: table.lastLba } : {}),
        sectorsize: 512,
        partitions: table.partitions.map((p) => ({
          node: `${table.device}${p.number}`,
          start: p.start,
          size: p.size,
          type: gpt ? '0FC63DAF-8483-4772-8E79-3D69D8477DE4' : '83',
          ...(gpt ? { uuid: 'A1B2C3D4-0000-4000-8000-00000000000' + String(p.number) } : {}),
        })),
      },
    },
    null,
    3,
  )}\n`;
}

/** `dumpe2fs -h DEVICE` (its header lines; the version goes to stderr). */
export function dumpe2fsHeader(blockCount: number, blockSize = 4096): string {
  return [
    'Filesystem volume name:   <none>',
    'Last mounted on:          /data',
    'Filesystem UUID:          0b7d9c56-3a1e-4f5c-9d2b-2f0a6c7e8d91',
    'Filesystem magic number:  0xEF53',
    'Filesystem revision #:    1 (dynamic)',
    'Filesystem features:      has_journal ext_attr resize_inode dir_index filetype needs_recovery extent 64bit flex_bg sparse_super large_file huge_file dir_nlink extra_isize metadata_csum',
    'Filesystem flags:         signed_directory_hash ',
    'Default mount options:    user_xattr acl',
    'Filesystem state:         clean',
    'Errors behavior:          Continue',
    'Filesystem OS type:       Linux',
    'Inode count:              655360',
    `Block count:              ${blockCount}`,
    'Reserved block count:     32768',
    `Block size:               ${blockSize}`,
    'Fragment size:            4096',
    '',
  ].join('\n');
}

/** One report of lvm2's `--reportformat json` (values as strings, as json prints them). */
export function lvmReport(kind: 'pv' | 'vg' | 'lv', rows: Array<Record<string, string>>): string {
  return `  {\n      "report": [\n          ${JSON.stringify({ [kind]: rows })}\n      ]\n  }\n`;
}
