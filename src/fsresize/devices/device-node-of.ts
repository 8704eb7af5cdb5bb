import { stat } from 'node:fs/promises';
import { readKernelText } from './kernel-files.js';
import { majorMinorOf } from './major-minor-of.js';

export interface DeviceNodeOfOptions {
  /** Where sysfs is mounted; default /sys. */
  sysfsRoot?: string;
  /** Where the device nodes are; default /dev. */
  devRoot?: string;
}

/**
 * The device node of the block device `majorMinor` ("8:16"), found by number rather than by a
 * name given at mount time (which may not exist here, or may since name another device): the
 * kernel's name for it (DEVNAME in /sys/dev/block/<major:minor>/uevent, e.g. "sdb", which udev
 * and devtmpfs create as /dev/sdb), then /dev/block/<major:minor>. A candidate counts only when
 * it is a block device with that number. Null when this node has none (e.g. a container whose
 * /dev lacks it).
 */
export async function deviceNodeOf(
  majorMinor: string,
  options: DeviceNodeOfOptions = {},
): Promise<string | null> {
  if (!/^\d+:\d+$/.test(majorMinor)) return null;
  const sysfs = options.sysfsRoot ?? '/sys';
  const dev = options.devRoot ?? '/dev';
  const name = /^DEVNAME=(.+)$/m.exec(
    readKernelText(`${sysfs}/dev/block/${majorMinor}/uevent`) ?? '',
  )?.[1];
  const named =
    name !== undefined &&
    /^[A-Za-z0-9._:+-]+(\/[A-Za-z0-9._:+-]+)*$/.test(name) &&
    !name.split('/').includes('..')
      ? [`${dev}/${name}`]
      : [];
  for (const candidate of [...named, `${dev}/block/${majorMinor}`]) {
    const info = await stat(candidate).catch(() => null);
    if (info?.isBlockDevice() && majorMinorOf(info.rdev) === majorMinor) return candidate;
  }
  return null;
}
