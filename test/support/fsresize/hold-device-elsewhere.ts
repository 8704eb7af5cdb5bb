import { spawn } from 'node:child_process';
import type { Stats } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { majorMinorOf } from '../../../src/fsresize/devices/major-minor-of.js';
import { onCleanup } from '../cleanup.js';

/** A process, not a child of the test process, that keeps a block device (or a file) open read-write. */
export interface DeviceHolder {
  pid: number;
  /** Ends it and waits until it no longer holds the device. */
  stop(): Promise<void>;
}

/**
 * Starts `sleep` with `device` open read-write (as QEMU keeps a VM's disk, or its disk image
 * file: `device` may be a regular file, without `ownMountNamespace`), detached by
 * `setsid --fork` so it is no child of the test process (the core leaves its own children out).
 * With `ownMountNamespace` it opens its own device node for the same device, made in a tmpfs of a
 * private mount namespace (as a container's /dev): the path the host sees differs from `device`.
 * Stopped after the test whatever happens.
 */
export async function holdDeviceElsewhere(
  device: string,
  scratchDirectory: string,
  options: { ownMountNamespace?: boolean } = {},
): Promise<DeviceHolder> {
  const pidFile = `${scratchDirectory}/holder-${process.hrtime.bigint()}.pid`;
  const target = await stat(device);
  const [major, minor] = majorMinorOf(target.rdev).split(':') as [string, string];
  const isTarget = (info: Stats): boolean =>
    target.isBlockDevice()
      ? info.isBlockDevice() && info.rdev === target.rdev
      : info.dev === target.dev && info.ino === target.ino;
  const hold = 'echo $$ > "$1" && exec 3<>"$2" && exec sleep 600';
  const args = options.ownMountNamespace
    ? [
        '--fork',
        'unshare',
        '--mount',
        '--propagation',
        'private',
        'sh',
        '-c',
        `mount -t tmpfs none "$3" && mknod "$3/disk" b "$4" "$5" && set -- "$1" "$3/disk" && ${hold}`,
        'sh',
        pidFile,
        device,
        '/mnt',
        major,
        minor,
      ]
    : ['--fork', 'sh', '-c', hold, 'sh', pidFile, device];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('setsid', args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`setsid exited ${code}`)),
    );
  });
  let pid = 0;
  for (let i = 0; i < 200 && pid === 0; i += 1) {
    const text = await readFile(pidFile, 'utf8').catch(() => '');
    const candidate = Number(text.trim());
    // Holding once its fd 3 is the device (or file).
    if (candidate > 0 && (await stat(`/proc/${candidate}/fd/3`).then(isTarget, () => false)))
      pid = candidate;
    else await delay(25);
  }
  if (pid === 0) throw new Error(`the holder of ${device} did not start`);
  const stop = async (): Promise<void> => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    for (
      let i = 0;
      i < 200 &&
      (await stat(`/proc/${pid}/fd/3`).then(
        () => true,
        () => false,
      ));
      i += 1
    )
      await delay(25);
    await rm(pidFile, { force: true });
  };
  onCleanup(stop);
  return { pid, stop };
}
