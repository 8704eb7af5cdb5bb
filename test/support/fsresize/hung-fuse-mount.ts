import { readdirSync, readFileSync } from 'node:fs';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { onCleanup } from '../cleanup.js';

const execFileAsync = promisify(execFile);

/**
 * Mounts at `directory` a FUSE filesystem whose "daemon" never answers (anything that asks it —
 * stat, realpath, open — waits until `stop`). `stop` (also run after the test) kills the daemon,
 * which aborts the connection so every waiting call returns, then unmounts `directory` and any
 * `alsoUnmount` given since (lazily: mounts on top of the dead one). `mount -i`: no
 * /sbin/mount.fuse helper (fuse3 ships one that would try to run the source as a program).
 */
export async function mountHungFuse(
  directory: string,
): Promise<{ stop: () => Promise<void>; alsoUnmount: (path: string) => void }> {
  const script = [
    'import os, subprocess, sys, time',
    'fd = os.open("/dev/fuse", os.O_RDWR)',
    'subprocess.run(["mount", "-i", "-t", "fuse", "-o", f"fd={fd},rootmode=40000,user_id=0,group_id=0", "voe-test-hang", sys.argv[1]], pass_fds=(fd,), check=True)',
    'print("mounted", flush=True)',
    'time.sleep(600)',
  ].join('\n');
  const daemon = spawn('python3', ['-c', script, directory], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const others: string[] = [];
  const stop = async (): Promise<void> => {
    daemon.kill('SIGKILL');
    for (const path of others.splice(0))
      await execFileAsync('umount', ['--lazy', path]).catch(() => undefined);
    await execFileAsync('umount', ['--lazy', directory]).catch(() => undefined);
  };
  onCleanup(stop);
  await new Promise<void>((resolve, reject) => {
    daemon.stdout.once('data', () => resolve());
    daemon.once('exit', (code) => reject(new Error(`the FUSE test daemon exited (${code})`)));
  });
  return {
    stop,
    alsoUnmount: (path) => {
      others.push(path);
    },
  };
}

/**
 * Starts a process (in a session of its own) that keeps a descriptor (O_PATH, which asks FUSE
 * nothing) on `directory`, a hung FUSE mount: a stat of that descriptor through /proc then hangs,
 * in every voe on the machine that looks for users of a device meanwhile, so keep it short.
 * Resolves with its pid; it is killed after the test.
 */
export async function holdOpen(directory: string): Promise<number> {
  const holder = spawn(
    'setsid',
    [
      '--fork',
      'python3',
      '-c',
      'import os, sys, time\nos.open(sys.argv[1], os.O_PATH)\nprint(os.getpid(), flush=True)\ntime.sleep(600)',
      directory,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const holderPid = await new Promise<number>((resolve) =>
    holder.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  onCleanup(() => {
    try {
      process.kill(holderPid, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  return holderPid;
}

/** A hung FUSE mount at `directory` (see mountHungFuse) held open by another process (see holdOpen). */
export async function hungFuseHeldOpen(
  directory: string,
): Promise<{ stop: () => Promise<void>; holderPid: number }> {
  const { stop } = await mountHungFuse(directory);
  return { stop, holderPid: await holdOpen(directory) };
}

/** Whether a thread of process `pid` waits inside FUSE (its wchan), e.g. on a stat of a hung FUSE mount. */
export function stuckInFuse(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).some((task) =>
      /fuse|request_wait_answer/.test(readFileSync(`/proc/${pid}/task/${task}/wchan`, 'utf8')),
    );
  } catch {
    return false;
  }
}
