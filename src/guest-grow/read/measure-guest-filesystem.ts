import {
  GuestGrowthError,
  parseBtrfsDumpSuper,
  parseDumpe2fsHeader,
  parseXfsStatfs,
  type GuestFilesystemSize,
} from '../../fsresize/index.js';
import type { LsblkDevice } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { readCommandOutput } from './read-command-output.js';

/** What measures a mounted filesystem: the core's probes, as commands in the guest. */
export function filesystemProbeArgv(device: LsblkDevice): string[] | undefined {
  const fstype = device.fstype ?? '';
  if (/^ext[234]$/.test(fstype)) return ['dumpe2fs', '-h', device.name];
  if (fstype === 'xfs' && device.mountPoint !== null)
    return ['xfs_io', '-c', 'statfs', device.mountPoint];
  if (fstype === 'btrfs') return ['btrfs', 'inspect-internal', 'dump-super', device.name];
  return undefined;
}

/**
 * The own size of the filesystem on `device` (mounted, ext2/3/4, xfs or btrfs), read with the
 * guest's tools: `dumpe2fs -h DEV` (with `pageBytes`, the guest's page size), `xfs_io -c statfs
 * MOUNTPOINT`, `btrfs inspect-internal dump-super DEV`. Undefined for any other device or when the
 * guest lacks the tool (the plan then says what is missing); GUESTGROW_LAYOUT_UNREADABLE when the
 * tool's output is not what it prints.
 */
export async function measureGuestFilesystem(
  agent: GuestAgent,
  device: LsblkDevice,
  context: { tools: ReadonlySet<string>; pageBytes: number | undefined; timeoutMs: number },
  signal?: AbortSignal,
): Promise<GuestFilesystemSize | undefined> {
  const argv = filesystemProbeArgv(device);
  if (argv === undefined || !context.tools.has(argv[0]!)) return undefined;
  const stdout = await readCommandOutput(agent, argv, context.timeoutMs, signal);
  const size = sizeOf(device.fstype!, stdout, context.pageBytes);
  if (size === null)
    throw new GuestGrowthError(
      'GUESTGROW_LAYOUT_UNREADABLE',
      `\`${argv.join(' ')}\` in the guest printed no size of ${device.fstype} on ${device.name}: ${JSON.stringify(stdout.slice(0, 200))}`,
      "check the filesystem in the guest, and that the guest agent can run the guest's tools, then retry",
      { device: device.name },
    );
  return size;
}

function sizeOf(
  fstype: string,
  stdout: string,
  pageBytes: number | undefined,
): GuestFilesystemSize | null {
  if (fstype === 'xfs') {
    const xfs = parseXfsStatfs(stdout);
    return xfs && { bytes: xfs.bytes, blockBytes: xfs.blockSize };
  }
  if (fstype === 'btrfs') {
    const btrfs = parseBtrfsDumpSuper(stdout);
    return (
      btrfs && {
        bytes: btrfs.bytes,
        blockBytes: btrfs.sectorSize,
        btrfs: { devid: btrfs.devid, devices: btrfs.devices },
      }
    );
  }
  const ext = parseDumpe2fsHeader(stdout);
  return (
    ext && {
      bytes: ext.bytes,
      blockBytes: ext.blockBytes,
      extPageBytes: pageBytes ?? ext.blockBytes,
      ext64bit: ext.ext64bit,
    }
  );
}
