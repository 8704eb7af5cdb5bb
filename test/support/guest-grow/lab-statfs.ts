/**
 * A lab guest's layout read with its own tools, as docs/guest-growth.md lists them, and parsed by
 * the fsresize core's parsers; and a plan's steps run there one after the other. The test side's
 * stand-in until the guest-agent runner (readGuestLayout, runGuestGrowth) is in this branch.
 */
import type { LabVm } from '../../../src/demo/index.js';
import {
  parseLsblkJson,
  parseLvmReports,
  parseSfdiskJson,
  type GuestFilesystemSize,
  type GuestLayout,
  type GuestStep,
} from '../../../src/fsresize/index.js';
import type { LsblkDevice } from '../../../src/fsresize/parse/parse-lsblk-json.js';
import { parseAuxvPageSize } from '../../../src/fsresize/parse/parse-auxv-page-size.js';
import { parseBtrfsDumpSuper } from '../../../src/fsresize/parse/parse-btrfs-dump-super.js';
import { parseExtSuperblock } from '../../../src/fsresize/parse/parse-ext-superblock.js';
import { parseXfsStatfs } from '../../../src/fsresize/parse/parse-xfs-statfs.js';
import { labGuestOutput, labGuestRun } from './lab-guest-commands.js';

const LSBLK = [
  'lsblk',
  '--json',
  '--bytes',
  '--paths',
  '--output',
  'NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE',
];
const LVM_OPTIONS = ['--reportformat', 'json', '--units', 'b', '--nosuffix', '-o'];
/** The tools a plan may run (docs/guest-growth.md "The plan"). */
const TOOLS = [
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
/** Prints each of its arguments that `command -v` finds (a constant script; the names are arguments). */
const WHICH = 'for tool do command -v "$tool" >/dev/null && echo "$tool"; done';
/** Prints a file's bytes as base64 (guest-exec decodes output as text; the path is an argument). */
const BASE64 = 'dd if="$1" bs="$2" skip="$3" count=1 2>/dev/null | base64';

/** The devices on `disk`: the disk, its partitions, what they hold (LVs), in lsblk's order. */
export function devicesOn(devices: readonly LsblkDevice[], disk: string): LsblkDevice[] {
  const byName = new Map(devices.map((device) => [device.name, device]));
  const found: LsblkDevice[] = [];
  const visit = (name: string): void => {
    const device = byName.get(name);
    if (!device || found.includes(device)) return;
    found.push(device);
    for (const child of device.children) visit(child);
  };
  visit(disk);
  return found;
}

async function base64Of(vm: LabVm, file: string, blockBytes: number, skip: number) {
  const text = await labGuestOutput(vm, {
    argv: ['sh', '-c', BASE64, 'base64', file, String(blockBytes), String(skip)],
  });
  return Buffer.from(text.replace(/\s/g, ''), 'base64');
}

/** The filesystem's own size, by the core's probes: ext superblock, xfs_io statfs, btrfs dump-super. */
async function filesystemSize(
  vm: LabVm,
  device: LsblkDevice,
  pageBytes: number,
): Promise<GuestFilesystemSize | undefined> {
  if (/^ext[234]$/.test(device.fstype ?? '')) {
    const superblock = parseExtSuperblock(await base64Of(vm, device.name, 1024, 1));
    if (!superblock) return undefined;
    return {
      bytes: superblock.bytes,
      blockBytes: superblock.blockSize,
      extPageBytes: pageBytes,
      ext64bit: superblock.bit64,
    };
  }
  if (device.fstype === 'xfs') {
    const geometry = parseXfsStatfs(
      await labGuestOutput(vm, { argv: ['xfs_io', '-c', 'statfs', device.mountPoint!] }),
    );
    return geometry ? { bytes: geometry.bytes, blockBytes: geometry.blockSize } : undefined;
  }
  if (device.fstype === 'btrfs') {
    const size = parseBtrfsDumpSuper(
      await labGuestOutput(vm, { argv: ['btrfs', 'inspect-internal', 'dump-super', device.name] }),
    );
    return size
      ? {
          bytes: size.bytes,
          blockBytes: size.sectorSize,
          btrfs: { devid: size.devid, devices: size.devices },
        }
      : undefined;
  }
  return undefined;
}

/** What the guest reports about `disk`, in the GuestLayout planGuestGrowth takes. */
export async function readLabGuestLayout(vm: LabVm, disk: string): Promise<GuestLayout> {
  const read = (argv: readonly string[]): Promise<string> => labGuestOutput(vm, { argv });
  const blockDevices = parseLsblkJson(await read(LSBLK));
  if (!blockDevices) throw new Error('lsblk printed no JSON in the guest');
  const mine = devicesOn(blockDevices, disk);
  const partitionTables: GuestLayout['partitionTables'] & Record<string, unknown> = {};
  for (const device of mine.filter((d) => d.type === 'disk' && d.partitionTable)) {
    const table = parseSfdiskJson(await read(['sfdisk', '--json', device.name]));
    if (table) partitionTables[device.name] = table;
  }
  const lvm = mine.some((device) => device.fstype === 'LVM2_member')
    ? parseLvmReports({
        pvs: await read([
          'pvs',
          ...LVM_OPTIONS,
          'pv_name,vg_name,pv_size,pv_free,pe_start,dev_size',
        ]),
        vgs: await read(['vgs', ...LVM_OPTIONS, 'vg_name,vg_free,vg_extent_size']),
        lvs: await read([
          'lvs',
          ...LVM_OPTIONS,
          'lv_name,vg_name,lv_path,lv_dm_path,lv_size,devices',
        ]),
      })
    : null;
  const pageBytes =
    parseAuxvPageSize(await base64Of(vm, '/proc/self/auxv', 4096, 0), 8, true) ?? undefined;
  const filesystems: Record<string, GuestFilesystemSize> = {};
  for (const device of mine.filter((d) => d.mountPoint !== null)) {
    const size = await filesystemSize(vm, device, pageBytes ?? 0);
    if (size) filesystems[device.name] = size;
  }
  const tools = new Set(
    (await labGuestRun(vm, { argv: ['sh', '-c', WHICH, 'which', ...TOOLS] })).stdout
      .split('\n')
      .filter(Boolean),
  );
  return { blockDevices, partitionTables, lvm, filesystems, tools };
}

/** What one step did in the guest. */
export interface LabStepRecord {
  argv: readonly string[];
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the steps in order, stopping at the first that fails; every step's record. */
export async function runLabSteps(
  vm: LabVm,
  steps: readonly GuestStep[],
): Promise<LabStepRecord[]> {
  const records: LabStepRecord[] = [];
  for (const step of steps) {
    const result = await labGuestRun(vm, { argv: step.argv, stdin: step.stdin });
    records.push({ argv: step.argv, ...result });
    if (result.exitCode !== 0) break;
  }
  return records;
}

/** statfs of a mount point in the guest (what df shows): its total bytes. */
export async function labStatfsBytes(vm: LabVm, mountPoint: string): Promise<number> {
  const [blocks, blockBytes] = (
    await labGuestOutput(vm, { argv: ['stat', '-f', '-c', '%b %S', mountPoint] })
  )
    .trim()
    .split(' ')
    .map(Number);
  return blocks! * blockBytes!;
}

/** `df -k` of a mount point in the guest, as a user reads it. */
export function labDf(vm: LabVm, mountPoint: string): Promise<string> {
  return labGuestOutput(vm, { argv: ['df', '-k', mountPoint] });
}
