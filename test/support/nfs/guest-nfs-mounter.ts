import type { LabVm } from '../../../src/demo/index.js';
import { parseMountinfo } from '../../../src/fsresize/parse/parse-mountinfo.js';
import type { MountEntry } from '../../../src/fsresize/index.js';
import type { Mounter } from '../../../src/guest-csi-bridge/node/mounter.js';

/** A command in the lab guest through its agent (argument arrays); its standard output, or an error naming its exit. */
export async function guestRun(vm: LabVm, path: string, args: readonly string[]): Promise<string> {
  const status = await vm.guestExec(path, args);
  if (status.exitCode !== 0)
    throw new Error(
      `${path} ${args.join(' ')} in the guest exited ${status.exitCode}: ${status.stderr.trim()}`,
    );
  return status.stdout;
}

/** The size of the filesystem mounted at `path` in the lab guest (busybox stat -f: blocks × block size). */
export async function guestStatfsBytes(vm: LabVm, path: string): Promise<number> {
  const [blocks, size] = (await guestRun(vm, '/bin/stat', ['-f', '-c', '%b %S', path]))
    .trim()
    .split(' ')
    .map(Number);
  return (blocks ?? 0) * (size ?? 0);
}

/**
 * The options mount.nfs gives the kernel for an NFSv4 mount (nfs-utils utils/mount/stropts.c:
 * nfs_append_addr_option adds the server's address as `addr=`, nfs_append_clientaddr_option the
 * client's as `clientaddr=`), which busybox's mount, with no mount.nfs helper, leaves to its
 * caller. Pure.
 */
export function nfs4MountOptions(
  source: string,
  options: readonly string[],
  clientAddress: string,
): string[] {
  const server = source.slice(0, source.lastIndexOf(':'));
  return [...options, `addr=${server}`, `clientaddr=${clientAddress}`];
}

/**
 * The node plugin's Mounter for a guest node that is the lab VM: the driver's NFS mount runs in
 * the guest's kernel as `mount -t nfs4 -o <options>,addr=,clientaddr= <server>:/<volume>
 * <path>` through the guest agent (argument arrays), bind-mounts (NodePublishVolume's staged share
 * at a pod's target path) with `mount -o bind`, then `remount,bind,ro` when read-only, unmounts
 * with umount, and reads the guest's /proc/self/mountinfo (the last mount at a path is the one it
 * shows). Formatting a disk is not what a shared volume needs: it throws.
 */
export function guestNfsMounter(vm: LabVm, clientAddress: string): Mounter {
  const mountAt = async (path: string): Promise<MountEntry | null> => {
    const entries = parseMountinfo(await guestRun(vm, '/bin/cat', ['/proc/self/mountinfo']));
    return entries.filter((entry) => entry.mountPoint === path).at(-1) ?? null;
  };
  return {
    mountAt,
    async mount(source, target, fsType, options) {
      if (fsType !== 'nfs') throw new Error(`the guest mounter mounts NFS only, not ${fsType}`);
      await guestRun(vm, '/bin/mkdir', ['-p', target]);
      const all = nfs4MountOptions(source, options, clientAddress);
      await guestRun(vm, '/bin/mount', ['-t', 'nfs4', '-o', all.join(','), source, target]);
    },
    async unmount(target) {
      for (let i = 0; i < 8 && (await mountAt(target)) !== null; i++)
        await guestRun(vm, '/bin/umount', [target]);
    },
    format() {
      return Promise.reject(new Error('the guest mounter does not format disks'));
    },
    async bind(source, target, readOnly) {
      await guestRun(vm, '/bin/mkdir', ['-p', target]);
      await guestRun(vm, '/bin/mount', ['-o', 'bind', source, target]);
      if (readOnly) await guestRun(vm, '/bin/mount', ['-o', 'remount,bind,ro', target]);
    },
  };
}
