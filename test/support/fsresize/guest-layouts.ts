import { assert } from 'chai';
import type { GuestFilesystemSize, GuestLayout } from '../../../src/fsresize/model/guest-layout.js';
import { parseLsblkJson } from '../../../src/fsresize/parse/parse-lsblk-json.js';
import {
  parseLvmReports,
  type LvmReportOutputs,
} from '../../../src/fsresize/parse/parse-lvm-reports.js';
import {
  parseSfdiskJson,
  type PartitionTable,
} from '../../../src/fsresize/parse/parse-sfdisk-json.js';

/** Every tool the guest plan may run: a Debian guest with all the packages of docs/guest-growth.md. */
export const ALL_TOOLS = [
  'growpart',
  'sfdisk',
  'partx',
  'resizepart',
  'resize2fs',
  'xfs_growfs',
  'btrfs',
  'pvresize',
  'lvextend',
];

/** A guest's layout from its tools' outputs, through the parsers the runner uses. */
export function guestLayout(outputs: {
  lsblk: string;
  sfdisk?: Record<string, string>;
  lvm?: LvmReportOutputs;
  filesystems?: Record<string, GuestFilesystemSize>;
  tools?: readonly string[];
}): GuestLayout {
  const blockDevices = parseLsblkJson(outputs.lsblk);
  assert.isNotNull(blockDevices, 'lsblk output parses');
  const partitionTables: Record<string, PartitionTable> = {};
  for (const [disk, text] of Object.entries(outputs.sfdisk ?? {})) {
    const table = parseSfdiskJson(text);
    assert.isNotNull(table, `sfdisk output of ${disk} parses`);
    partitionTables[disk] = table!;
  }
  const lvm = outputs.lvm ? parseLvmReports(outputs.lvm) : null;
  if (outputs.lvm) assert.isNotNull(lvm, 'LVM reports parse');
  return {
    blockDevices: blockDevices!,
    partitionTables,
    lvm,
    filesystems: outputs.filesystems ?? {},
    tools: new Set(outputs.tools ?? ALL_TOOLS),
  };
}

/** A filesystem of `bytes` in 4 KiB blocks, on a guest with 4 KiB pages (ext: with 64bit). */
export function fsSize(filesystem: 'ext4' | 'xfs' | 'btrfs', bytes: number): GuestFilesystemSize {
  return filesystem === 'ext4'
    ? { bytes, blockBytes: 4096, extPageBytes: 4096, ext64bit: true }
    : filesystem === 'btrfs'
      ? { bytes, blockBytes: 4096, btrfs: { devid: 1, devices: 1 } }
      : { bytes, blockBytes: 4096 };
}
