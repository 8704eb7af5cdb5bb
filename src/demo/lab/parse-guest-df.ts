/** A mounted filesystem as `df -P -B1 MOUNT` shows it in the guest (statfs of the mount point). */
export interface GuestDf {
  /** The mount point df was asked about. */
  mountPoint: string;
  /** The device df names (its first column). */
  filesystem: string;
  /** statfs's f_blocks, f_blocks - f_bfree and f_bavail, in bytes (df's 1-byte blocks). */
  sizeBytes: string;
  usedBytes: string;
  availableBytes: string;
}

/**
 * Parses `df -P -B1 MOUNT` (POSIX format, busybox's and coreutils' alike: a header line, then
 * `FILESYSTEM SIZE USED AVAILABLE CAPACITY MOUNTED-ON`); undefined unless there is exactly one
 * filesystem line whose three sizes are whole numbers.
 */
export function parseGuestDf(stdout: string, mountPoint: string): GuestDf | undefined {
  const rows = stdout
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(1);
  if (rows.length !== 1) return undefined;
  const [filesystem, size, used, available] = rows[0]!.split(/\s+/);
  if (filesystem === undefined || ![size, used, available].every((n) => /^\d+$/.test(n ?? '')))
    return undefined;
  return {
    mountPoint,
    filesystem,
    sizeBytes: size!,
    usedBytes: used!,
    availableBytes: available!,
  };
}
