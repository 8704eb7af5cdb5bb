import {
  GuestGrowthError,
  parseLsblkJson,
  parseLvmReports,
  parseMountinfo,
  parseSfdiskJson,
  type GuestFilesystemSize,
  type GuestLayout,
  type LsblkDevice,
  type PartitionTable,
} from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { readGuestTools } from './guest-tools.js';
import { measureGuestFilesystem } from './measure-guest-filesystem.js';
import {
  MOUNTINFO_ARGV,
  mountedWithoutType,
  withMountedTypes,
} from './mounted-filesystem-types.js';
import { readCommandOutput } from './read-command-output.js';

/** Which disk to read, as the guest names it (/dev/vdb: the device the guest probe matched to the VMI disk). */
export interface GuestLayoutTarget {
  disk: string;
  /** How long each command may take in the guest; default 20 s. */
  timeoutMs?: number;
}

export const DEFAULT_READ_TIMEOUT_MS = 20_000;

export const LSBLK_ARGV = [
  'lsblk',
  '--json',
  '--bytes',
  '--paths',
  '--output',
  'NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE',
] as const;

const LVM_OPTIONS = ['--reportformat', 'json', '--units', 'b', '--nosuffix', '-o'] as const;

/** pvs, vgs and lvs with the fields parseLvmReports reads. */
export const LVM_REPORT_ARGV = {
  pvs: ['pvs', ...LVM_OPTIONS, 'pv_name,vg_name,pv_size,pv_free,pe_start,dev_size'],
  vgs: ['vgs', ...LVM_OPTIONS, 'vg_name,vg_free,vg_extent_size'],
  lvs: ['lvs', ...LVM_OPTIONS, 'lv_name,vg_name,lv_path,lv_dm_path,lv_size,devices'],
} as const;

function unreadable(command: string, stdout: string): GuestGrowthError {
  return new GuestGrowthError(
    'GUESTGROW_LAYOUT_UNREADABLE',
    `\`${command}\` in the guest did not print the JSON voe reads: ${JSON.stringify(stdout.slice(0, 200))}`,
    "check the guest's tools (util-linux, lvm2) and retry",
    { command },
  );
}

/** The disk and every device stacked on it (partitions, LVs, mappings), by lsblk's tree. */
function devicesOn(devices: readonly LsblkDevice[], disk: string): LsblkDevice[] {
  const byName = new Map(devices.map((device) => [device.name, device]));
  const found: LsblkDevice[] = [];
  const visit = (name: string): void => {
    const device = byName.get(name);
    if (device === undefined || found.includes(device)) return;
    found.push(device);
    device.children.forEach(visit);
  };
  visit(disk);
  return found;
}

/**
 * What a Linux guest reports of one disk, read through its guest agent with its own tools
 * (docs/guest-growth.md "What the guest reports"): which tools it has, `lsblk --json`, `sfdisk
 * --json DISK` when the disk is partitioned, the mount table when lsblk shows one of its devices
 * mounted with no filesystem type (withMountedTypes), pvs/vgs/lvs when a physical volume is on it, and
 * the size of each mounted ext, xfs or btrfs filesystem on it. Nothing is written. What the guest
 * lacks the tool for is left out (the plan names what is missing); GUESTGROW_LAYOUT_UNREADABLE
 * when a command fails, times out, is truncated or prints what its parser does not read;
 * GUESTRUN_AGENT_FAILED when the agent cannot be asked.
 */
export async function readGuestLayout(
  agent: GuestAgent,
  target: GuestLayoutTarget,
  signal?: AbortSignal,
): Promise<GuestLayout> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const read = (argv: readonly string[]): Promise<string> =>
    readCommandOutput(agent, argv, timeoutMs, signal);
  const tools = await readGuestTools(agent, timeoutMs, signal);
  const lsblk = await read(LSBLK_ARGV);
  const listed = parseLsblkJson(lsblk);
  if (listed === null) throw unreadable('lsblk --json', lsblk);
  const blockDevices = mountedWithoutType(devicesOn(listed, target.disk)).length
    ? withMountedTypes(listed, parseMountinfo(await read(MOUNTINFO_ARGV)))
    : listed;
  const mine = devicesOn(blockDevices, target.disk);
  const disk = mine[0];
  const partitionTables: Record<string, PartitionTable> = {};
  const partitioned =
    disk !== undefined &&
    (disk.partitionTable !== null || mine.some((device) => device.type === 'part'));
  if (disk !== undefined && partitioned && tools.has('sfdisk')) {
    const stdout = await read(['sfdisk', '--json', disk.name]);
    const table = parseSfdiskJson(stdout);
    if (table === null) throw unreadable(`sfdisk --json ${disk.name}`, stdout);
    partitionTables[disk.name] = table;
  }
  let lvm: GuestLayout['lvm'] = null;
  if (mine.some((device) => device.fstype === 'LVM2_member') && tools.has('pvs')) {
    const outputs = {
      pvs: await read(LVM_REPORT_ARGV.pvs),
      vgs: await read(LVM_REPORT_ARGV.vgs),
      lvs: await read(LVM_REPORT_ARGV.lvs),
    };
    lvm = parseLvmReports(outputs);
    if (lvm === null) throw unreadable('pvs, vgs, lvs --reportformat json', outputs.pvs);
  }
  const mounted = mine.filter((device) => device.mountPoint !== null);
  const pageBytes =
    mounted.some((device) => /^ext[234]$/.test(device.fstype ?? '')) && tools.has('getconf')
      ? Number((await read(['getconf', 'PAGESIZE'])).trim()) || undefined
      : undefined;
  const filesystems: Record<string, GuestFilesystemSize> = {};
  for (const device of mounted) {
    const size = await measureGuestFilesystem(
      agent,
      device,
      { tools, pageBytes, timeoutMs },
      signal,
    );
    if (size !== undefined) filesystems[device.name] = size;
  }
  return { blockDevices, partitionTables, lvm, filesystems, tools };
}
