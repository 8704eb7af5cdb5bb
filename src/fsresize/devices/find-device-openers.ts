import { readdirSync, readlinkSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DeviceOpener, UnreadableProcess } from '../model/block-devices.js';
import type { BackingFileOf } from './follow-loop-backings.js';
import { readKernelText } from './kernel-files.js';
import { majorMinorOf } from './major-minor-of.js';
import { createStatWithin, type StatWithin } from './stat-within.js';

/** /proc/<pid>/fd entries read between two turns of the event loop. */
const FDS_PER_TURN = 2048;

/** Default for FindDeviceOpenersOptions.timeoutMs. */
export const DEFAULT_OPENERS_TIMEOUT_MS = 10_000;

/** What the look is called in its FSRESIZE_TIMEOUT message. */
export function openersLookName(device: string): string {
  return `looking for other programs that have ${device} open`;
}

export interface FindDeviceOpenersOptions {
  /** Where procfs is mounted; default /proc. */
  procRoot?: string;
  /** Left out, with the processes it started; default this process. */
  selfPid?: number;
  /** FSRESIZE_TIMEOUT when looking takes longer (a stat stuck on a hung NFS or FUSE mount); default 10 s. */
  timeoutMs?: number;
  /** Names the device in the timeout's message; default the device numbers. */
  deviceName?: string;
  /** The bounded stat to use, shared with other looks of the same operation; default one of its own (timeoutMs, deviceName). */
  statWithin?: StatWithin;
  /**
   * Processes not looked at at all (read when the walk gets there): the caller's own probes.
   * Reading a process's descriptors while it is being started (exec) delays that start, which
   * would slow the probe that runs beside the look (blkid) by about as long as the look takes.
   */
  skipPids?: ReadonlySet<number>;
  /**
   * Regular files to look for too, by identity ("<st_dev>:<st_ino>"): loop devices' backing files.
   * A process that has one open is returned with the loop device's number and `backingFile`.
   */
  files?: ReadonlyMap<string, BackingFileOf>;
}

/** What findDeviceOpeners saw: who has the devices open, and whose open files it could not read. */
export interface DeviceOpenersFound {
  openedBy: DeviceOpener[];
  /** Processes whose descriptors the kernel refused to show (EACCES/EPERM): not known not to use the devices. */
  unreadable: UnreadableProcess[];
}

/** Whether a /proc error means "not yours to read" rather than "gone". */
function refused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM';
}

/**
 * The processes that have any of the block devices `majorMinors` (or of `options.files`) open, found as fuser(1) does:
 * through every /proc/<pid>/fd link whose target is a path (sockets, pipes and anonymous inodes
 * are skipped), compared by device number, so a device node opened under any name or in another
 * mount namespace is found too. `selfPid` and its children (e.g. a blkid still running) are left
 * out. Only the processes of this PID namespace are visible. A process whose descriptors the
 * kernel will not show (EACCES/EPERM: no CAP_SYS_PTRACE, or it has capabilities this one lacks, or
 * another user's while not root) is returned in `unreadable`: it may have them open.
 *
 * The /proc listings are read synchronously (procfs never waits on a device), FDS_PER_TURN
 * entries at a time; the targets listed are then stat'ed through libuv's thread pool, two at a
 * time, before the next entries are read (memory stays small however many descriptors a node has
 * open, and the event loop turns in between): a target may lie on a filesystem that never
 * answers, and the whole look is bounded by `timeoutMs` (FSRESIZE_TIMEOUT naming the path), never
 * taken as "nobody".
 */
export async function findDeviceOpeners(
  majorMinors: readonly string[],
  options: FindDeviceOpenersOptions = {},
): Promise<DeviceOpenersFound> {
  const proc = options.procRoot ?? '/proc';
  const self = options.selfPid ?? process.pid;
  const statWithin =
    options.statWithin ??
    createStatWithin(
      Date.now() + (options.timeoutMs ?? DEFAULT_OPENERS_TIMEOUT_MS),
      openersLookName(options.deviceName ?? majorMinors.join(', ')),
    );
  const pids = readdirSync(proc)
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== self);
  const targets = createTargetCheck(statWithin, new Set(majorMinors), options.files);
  const unreadable = await walkDescriptors(proc, pids, options.skipPids, targets);
  const byPid = (a: number, b: number): number => a - b;
  return {
    openedBy: [...targets.matching.keys()].sort(byPid).flatMap((pid): DeviceOpener[] => {
      const command = otherCommand(proc, self, pid);
      return command === null
        ? []
        : [{ pid, command, ...(targets.matching.get(pid) as OpenedWhat) }];
    }),
    unreadable: [...unreadable].sort(byPid).flatMap((pid): UnreadableProcess[] => {
      const command = otherCommand(proc, self, pid);
      return command === null ? [] : [{ pid, command }];
    }),
  };
}

/** What a process was found to have open. */
type OpenedWhat = Pick<DeviceOpener, 'majorMinor' | 'backingFile'>;

/** The targets of descriptor links, listed by the walk and stat'ed in batches to find the devices and files looked for. */
interface TargetCheck {
  /** The processes found to have one open, with what. */
  matching: Map<number, OpenedWhat>;
  /** Lists a target to stat at the next check. */
  add(pid: number, path: string): void;
  /** Stats the targets listed since the last check, two at a time, and lets the event loop turn. */
  check(): Promise<void>;
}

function createTargetCheck(
  statWithin: StatWithin,
  wanted: ReadonlySet<string>,
  files: ReadonlyMap<string, BackingFileOf> | undefined,
): TargetCheck {
  const matching = new Map<number, OpenedWhat>();
  let listed: Array<{ pid: number; path: string }> = [];
  const check = async (): Promise<void> => {
    const batch = listed;
    listed = [];
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < batch.length) {
        const { pid, path } = batch[next++] as { pid: number; path: string };
        if (matching.has(pid)) continue;
        const info = await statWithin(path, `pid ${pid}`);
        if (info?.isBlockDevice()) {
          const number = majorMinorOf(info.rdev);
          if (wanted.has(number)) matching.set(pid, { majorMinor: number });
        } else if (files !== undefined && info?.isFile()) {
          const file = files.get(`${info.dev}:${info.ino}`);
          if (file !== undefined)
            matching.set(pid, { majorMinor: file.majorMinor, backingFile: file.path });
        }
      }
    };
    await Promise.all([lane(), lane(), nextTurn()]);
  };
  return { matching, add: (pid, path) => listed.push({ pid, path }), check };
}

/**
 * Reads every /proc/<pid>/fd of `pids` (but those in `skip` when the walk gets there), listing
 * the path targets for `targets`, which checks them every FDS_PER_TURN entries. Resolves with the
 * processes whose descriptors the kernel would not show.
 */
async function walkDescriptors(
  proc: string,
  pids: number[],
  skip: ReadonlySet<number> | undefined,
  targets: TargetCheck,
): Promise<Set<number>> {
  const unreadable = new Set<number>();
  let readThisTurn = 0;
  for (const pid of pids) {
    if (skip?.has(pid)) continue;
    const directory = `${proc}/${pid}/fd`;
    let fds: string[];
    try {
      fds = readdirSync(directory);
    } catch (error) {
      if (refused(error)) unreadable.add(pid);
      continue; // else the process ended
    }
    for (const fd of fds) {
      if (++readThisTurn >= FDS_PER_TURN) {
        readThisTurn = 0;
        await targets.check();
      }
      const path = `${directory}/${fd}`;
      try {
        if (readlinkSync(path).startsWith('/')) targets.add(pid, path);
      } catch (error) {
        // ENOENT: closed meanwhile. EACCES/EPERM: the kernel shows no descriptor of this process
        // (the check is per process): it is unreadable, and asking for the others only costs time.
        if (refused(error)) {
          unreadable.add(pid);
          break;
        }
      }
    }
  }
  await targets.check();
  return unreadable;
}

/** Its command name, or null when it ended meanwhile or is a child of `self` (e.g. a blkid it started). */
function otherCommand(proc: string, self: number, pid: number): string | null {
  const status = readKernelText(`${proc}/${pid}/stat`);
  if (status === null) return null; // ended meanwhile
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses; ppid follows the last ')'.
  const parent = Number(
    status
      .slice(status.lastIndexOf(')') + 1)
      .trim()
      .split(' ')[1],
  );
  if (parent === self) return null;
  return readKernelText(`${proc}/${pid}/comm`)?.trim() ?? '?';
}
