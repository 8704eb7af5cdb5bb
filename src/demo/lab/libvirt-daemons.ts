import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { waitUntil } from '../../wait/index.js';
import { LOCAL_LIBVIRT_URI } from '../../vmwatcher/index.js';
import { VmLabError } from './vm-lab-error.js';

const run = promisify(execFile);

/** What libvirtd and virtlogd need (docs/tracker.md "The VM lab"). */
const LIBVIRT_DIRS = [
  '/var/log/libvirt',
  '/var/run/libvirt',
  '/var/lib/libvirt/qemu',
  '/var/cache/libvirt',
];
const PID_FILES = { virtlogd: '/var/run/virtlogd.pid', libvirtd: '/var/run/libvirtd.pid' } as const;

/** The local libvirt: stop() lets go of it; the last holder's stop() ends the daemons this process started, and only those. */
export interface LibvirtDaemons {
  /** Whether a libvirtd already answered (then nothing was started and stop() does nothing). */
  reused: boolean;
  stop(): Promise<void>;
}

async function answers(): Promise<boolean> {
  try {
    await run('virsh', ['-c', LOCAL_LIBVIRT_URI, 'version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function pidOf(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the pid, then up to `ms` for it to go (SIGKILL after). */
async function terminate(pid: number, ms: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if ((await waitUntil(() => !alive(pid), { timeoutMs: ms, intervalMs: 50 })) === 'ok') return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/**
 * A local libvirtd with its QEMU driver and virtlogd, as virt-launcher runs them (as root, from
 * Debian's packages): reused when one already answers on qemu:///system; else the directories
 * are made, `virtlogd -d` and `libvirtd -d` started, and the call returns once virsh connects.
 * stop() ends them by the pids they wrote.
 */
async function launchLibvirt(options: { timeoutMs?: number }): Promise<LibvirtDaemons> {
  if (await answers()) return { reused: true, stop: async () => undefined };
  if (process.getuid?.() !== 0)
    throw new VmLabError(
      'VMLAB_LIBVIRT_FAILED',
      'the VM lab starts libvirtd, which needs root: run as root',
    );
  const started: number[] = [];
  const stop = async (): Promise<void> => {
    for (const pid of started.splice(0).reverse()) await terminate(pid, 10_000);
  };
  try {
    for (const dir of LIBVIRT_DIRS) await mkdir(dir, { recursive: true });
    for (const daemon of ['virtlogd', 'libvirtd'] as const) {
      const before = await pidOf(PID_FILES[daemon]);
      if (before !== undefined && alive(before)) continue;
      await run(daemon, ['-d'], { timeout: 30_000 });
      const outcome = await waitUntil(async () => (await pidOf(PID_FILES[daemon])) !== undefined, {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      const pid = await pidOf(PID_FILES[daemon]);
      if (outcome !== 'ok' || pid === undefined)
        throw new VmLabError('VMLAB_LIBVIRT_FAILED', `${daemon} -d wrote no ${PID_FILES[daemon]}`);
      started.push(pid);
    }
    const outcome = await waitUntil(answers, {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 100,
    });
    if (outcome !== 'ok')
      throw new VmLabError(
        'VMLAB_LIBVIRT_FAILED',
        `libvirtd started but virsh -c ${LOCAL_LIBVIRT_URI} does not connect; see /var/log/libvirt`,
      );
    return { reused: false, stop };
  } catch (error) {
    await stop();
    if (error instanceof VmLabError) throw error;
    throw new VmLabError(
      'VMLAB_LIBVIRT_FAILED',
      `starting libvirtd failed: ${(error as Error).message.split('\n')[0]} (install it with "bash scripts/install-test-deps.sh vm")`,
      { cause: error },
    );
  }
}

/** The daemons this process launched, and how many callers of startLibvirt still hold them. */
let shared: { launched: Promise<LibvirtDaemons>; holders: number } | undefined;

/**
 * The local libvirt for one caller (launchLibvirt: reused, or started). Callers in one process
 * share one launch: each stop() lets go of it once, and the daemons end when the last holder lets
 * go, so one caller (a test file's after hook) never stops libvirtd under another's domains.
 */
export async function startLibvirt(options: { timeoutMs?: number } = {}): Promise<LibvirtDaemons> {
  if (shared === undefined) {
    const launched = launchLibvirt(options);
    shared = { launched, holders: 0 };
    launched.catch(() => {
      if (shared?.launched === launched) shared = undefined;
    });
  }
  const held = shared;
  const daemons = await held.launched;
  held.holders++;
  let holding = true;
  return {
    reused: daemons.reused,
    stop: async () => {
      if (!holding) return;
      holding = false;
      if (--held.holders > 0) return;
      if (shared === held) shared = undefined;
      await daemons.stop();
    },
  };
}
