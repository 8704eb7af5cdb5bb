/** A Windows disk's device path, as qemu-ga on Windows writes `dev` (qga/commands-win32.c build_guest_disk_info): \\.\PhysicalDriveN. */
const PHYSICAL_DRIVE = /^\\\\\.\\PhysicalDrive(\d+)$/i;

/** The number N of \\.\PhysicalDriveN; undefined for any other device (/dev/vdb, a volume path). Pure. */
export function physicalDriveNumber(device: string): number | undefined {
  const digits = PHYSICAL_DRIVE.exec(device)?.[1];
  return digits === undefined ? undefined : Number(digits);
}
