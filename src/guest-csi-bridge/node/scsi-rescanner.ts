import { access, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';

/** Asks the kernel to read a device's capacity again. */
export interface ScsiRescanner {
  /** Rescans the SCSI device `realPath` (e.g. /dev/sdb); false when it is not a SCSI device (nothing to rescan). */
  rescan(realPath: string): Promise<boolean>;
}

/**
 * The production ScsiRescanner: writes 1 to /sys/class/block/<name>/device/rescan, what
 * `echo 1 > .../rescan` does by hand. A grown virtio-scsi disk may show its new size only then.
 */
export function createSysfsScsiRescanner(sysfsRoot = '/sys'): ScsiRescanner {
  return {
    async rescan(realPath) {
      const file = `${sysfsRoot}/class/block/${basename(realPath)}/device/rescan`;
      const exists = await access(file).then(
        () => true,
        () => false,
      );
      if (!exists) return false;
      await writeFile(file, '1');
      return true;
    },
  };
}
