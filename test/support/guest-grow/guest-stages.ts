import { lsblkOutput } from '../fsresize/guest-outputs.js';
import { dumpe2fsHeader } from './dumpe2fs-output.js';
import type { GuestStage } from './scripted-agent.js';

/** The reading commands readGuestLayout runs, as the scripted agent keys them (argv joined by spaces). */
export const LSBLK =
  'lsblk --json --bytes --paths --output NAME,KNAME,PKNAME,TYPE,SIZE,FSTYPE,MOUNTPOINT,PTTYPE';
export const PVS =
  'pvs --reportformat json --units b --nosuffix -o pv_name,vg_name,pv_size,pv_free,pe_start,dev_size';
export const VGS = 'vgs --reportformat json --units b --nosuffix -o vg_name,vg_free,vg_extent_size';
export const LVS =
  'lvs --reportformat json --units b --nosuffix -o lv_name,vg_name,lv_path,lv_dm_path,lv_size,devices';
export const PAGE = { 'getconf PAGESIZE': '4096\n' };

/** The tools an ext4 growth reads and runs with. */
export const EXT_TOOLS = ['dumpe2fs', 'getconf', 'resize2fs'];

/** An ext4 filesystem of `fsBlocks` 4 KiB blocks mounted at /data on the whole disk `disk`. */
export function wholeDisk(diskBytes: number, fsBlocks: number, disk = '/dev/vdb'): GuestStage {
  return {
    [LSBLK]: lsblkOutput({
      name: disk,
      type: 'disk',
      size: diskBytes,
      fstype: 'ext4',
      mountpoint: '/data',
    }),
    [`dumpe2fs -h ${disk}`]: dumpe2fsHeader(fsBlocks),
    ...PAGE,
  };
}
