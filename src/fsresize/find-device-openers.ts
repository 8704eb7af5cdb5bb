import { readdirSync, readlinkSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DeviceOpener } from './block-devices.js';
import { majorMinorOf } from './major-minor-of.js';

/** Processes whose open files are listed between two turns of the event loop. */
const PROCESSES_PER_TURN = 32;

export interface FindDeviceOpenersOptions {
  /** Where procfs is mounted; default /proc. */
  procRoot?: string;
  /** Left out, with the processes it started; default this process. */
  selfPid?: number;
}

/**
 * The processes that have the block device `majorMinor` open, found as fuser(1) does: through
 * every /proc/<pid>/fd link whose target is a path (sockets, pipes and anonymous inodes are
 * skipped), compared by device number, so a device node opened under any name or in another
 * mount namespace is found too. `selfPid` and its children (e.g. a blkid still running) are left
 * out. Only the processes of this PID namespace are visible, and reading another user's
 * processes needs root. The /proc listings are read synchronously (procfs never waits on a
 * device), a batch of processes per turn of the event loop; the targets are stat'ed through the
 * thread pool, as a path may lie on a network filesystem that is slow to answer.
 */
export async function findDeviceOpeners(majorMinor: string, options: FindDeviceOpenersOptions = {}): Promise<DeviceOpener[]> {
  const proc = options.procRoot ?? '/proc';
  const self = options.selfPid ?? process.pid;
  const pids = (await readdir(proc)).filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => pid !== self);
  const candidates: Array<{ pid: number; path: string }> = [];
  for (let first = 0; first < pids.length; first += PROCESSES_PER_TURN) {
    if (first > 0) await nextTurn();
    for (const pid of pids.slice(first, first + PROCESSES_PER_TURN)) {
      const directory = `${proc}/${pid}/fd`;
      let fds: string[];
      try {
        fds = readdirSync(directory);
      } catch {
        continue; // the process ended, or is not ours to look at
      }
      for (const fd of fds) {
        const path = `${directory}/${fd}`;
        try {
          if (readlinkSync(path).startsWith('/')) candidates.push({ pid, path });
        } catch {
          // closed meanwhile
        }
      }
    }
  }
  const matching = new Set<number>();
  await Promise.all(candidates.map(async ({ pid, path }) => {
    if (matching.has(pid)) return;
    const info = await stat(path).catch(() => null);
    if (info?.isBlockDevice() && majorMinorOf(info.rdev) === majorMinor) matching.add(pid);
  }));
  const openers = await Promise.all([...matching].sort((a, b) => a - b).map(async (pid) => {
    const [status, command] = await Promise.all([
      readFile(`${proc}/${pid}/stat`, 'utf8').catch(() => null),
      readFile(`${proc}/${pid}/comm`, 'utf8').then((text) => text.trim(), () => '?'),
    ]);
    if (status === null) return null; // ended meanwhile
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; ppid follows the last ')'.
    const parent = Number(status.slice(status.lastIndexOf(')') + 1).trim().split(' ')[1]);
    return parent === self ? null : { pid, command };
  }));
  return openers.filter((opener): opener is DeviceOpener => opener !== null);
}
