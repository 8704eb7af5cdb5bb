/**
 * A filesystem on a lab guest's disk, made and measured with the guest's own tools through its
 * agent (guest-exec, argument lists; never a shell string): what `voe demo --vm` grows.
 */
import type { LabVm } from './lab-vm.js';
import { parseGuestDf, type GuestDf } from './parse-guest-df.js';
import { VmLabError } from './vm-lab-error.js';

/** The filesystems the lab guest's tools make (e2fsprogs, xfsprogs). */
export type LabFilesystemType = 'ext4' | 'xfs';

/** Runs argv in the guest; its standard output, or VMLAB_DOMAIN_FAILED with the exit code and stderr. */
async function guestOutput(vm: LabVm, argv: readonly [string, ...string[]]): Promise<string> {
  const [path, ...args] = argv;
  const result = await vm.guestExec(path, args);
  if (result.exitCode !== 0)
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `${argv.join(' ')} exited ${String(result.exitCode)} in the guest of ${vm.domain}: ${result.stderr.trim() || result.stdout.trim()}`,
    );
  return result.stdout;
}

/**
 * Makes `type` on the whole of the guest's `device` (e.g. /dev/vda) and mounts it on
 * `mountPoint`; then waits until udev has read it (the guest's lsblk reports its type from there).
 */
export async function makeLabFilesystem(
  vm: LabVm,
  options: { device: string; type: LabFilesystemType; mountPoint: string },
): Promise<void> {
  const { device, type, mountPoint } = options;
  await guestOutput(
    vm,
    type === 'ext4' ? ['mkfs.ext4', '-q', '-F', device] : ['mkfs.xfs', '-q', '-f', device],
  );
  await guestOutput(vm, ['mkdir', '-p', mountPoint]);
  await guestOutput(vm, ['mount', '-t', type, device, mountPoint]);
  await guestOutput(vm, ['udevadm', 'settle', '--timeout=30']);
}

/** The guest's `df -P -B1 MOUNT`: statfs of the mount point, in bytes. */
export async function guestDf(vm: LabVm, mountPoint: string): Promise<GuestDf> {
  const stdout = await guestOutput(vm, ['df', '-P', '-B1', mountPoint]);
  const df = parseGuestDf(stdout, mountPoint);
  if (df === undefined)
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `df -P -B1 ${mountPoint} in the guest of ${vm.domain} printed no single filesystem line: ${stdout.trim()}`,
    );
  return df;
}
