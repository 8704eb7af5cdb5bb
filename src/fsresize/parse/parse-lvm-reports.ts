/** A physical volume, from `pvs --reportformat json --units b --nosuffix -o pv_name,vg_name,pv_size,pv_free,pe_start,dev_size`. */
export interface LvmPhysicalVolume {
  name: string;
  /** Empty when the PV belongs to no volume group. */
  vg: string;
  /** pv_size: what LVM uses of the device (the device less the metadata area before pe_start). */
  bytes: number;
  freeBytes: number;
  /** pe_start: where the first extent starts on the device. */
  peStartBytes: number;
  /** dev_size: the device's size as LVM read it. */
  deviceBytes: number;
}

/** A volume group, from `vgs ... -o vg_name,vg_free,vg_extent_size`. */
export interface LvmVolumeGroup {
  name: string;
  freeBytes: number;
  extentBytes: number;
}

/** A logical volume, from `lvs ... -o lv_name,vg_name,lv_path,lv_dm_path,lv_size,devices`. */
export interface LvmLogicalVolume {
  name: string;
  vg: string;
  /** lv_path, e.g. /dev/vg0/data. */
  path: string;
  /** lv_dm_path, e.g. /dev/mapper/vg0-data: the name lsblk --paths gives it. */
  dmPath: string;
  bytes: number;
  /** The PVs its segments lie on (devices, without the "(extent)" suffix). */
  devices: string[];
}

/** What the three reports say. */
export interface LvmLayout {
  pvs: LvmPhysicalVolume[];
  vgs: LvmVolumeGroup[];
  lvs: LvmLogicalVolume[];
}

/** The JSON outputs of pvs, vgs and lvs run with the options above. */
export interface LvmReportOutputs {
  pvs: string;
  vgs: string;
  lvs: string;
}

type Row = Record<string, unknown>;

/** The rows of one report: `{"report":[{"pv":[{...}]}]}` (also with a "log" beside "report"). */
function rowsOf(stdout: string, kind: 'pv' | 'vg' | 'lv'): Row[] | null {
  let root: unknown;
  try {
    root = JSON.parse(stdout);
  } catch {
    return null;
  }
  const reports = (root as { report?: unknown } | null)?.report;
  if (!Array.isArray(reports)) return null;
  const rows: Row[] = [];
  for (const report of reports as Array<Record<string, unknown>>) {
    const list = report?.[kind];
    if (!Array.isArray(list)) return null;
    rows.push(...(list as Row[]));
  }
  return rows;
}

/** A field as text: json prints every value as a string, json_std numbers as numbers. */
function field(row: Row, name: string): string | null {
  const value = row[name];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value : null;
}

/** A size field with --units b --nosuffix: whole bytes. */
function bytes(row: Row, name: string): number | null {
  const value = field(row, name);
  if (value === null || !/^\d+$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}

/**
 * The LVM layout from the three reports. lvs lists an LV once per segment when `devices` is
 * asked for: the rows of one LV are merged, their devices joined. Null when a report is not that
 * JSON or a needed field is missing or not whole bytes. Pure.
 */
export function parseLvmReports(outputs: LvmReportOutputs): LvmLayout | null {
  const pvRows = rowsOf(outputs.pvs, 'pv');
  const vgRows = rowsOf(outputs.vgs, 'vg');
  const lvRows = rowsOf(outputs.lvs, 'lv');
  if (pvRows === null || vgRows === null || lvRows === null) return null;
  const pvs: LvmPhysicalVolume[] = [];
  for (const row of pvRows) {
    const name = field(row, 'pv_name');
    const size = bytes(row, 'pv_size');
    const free = bytes(row, 'pv_free');
    const peStart = bytes(row, 'pe_start');
    const device = bytes(row, 'dev_size');
    if (name === null || size === null || free === null || peStart === null || device === null)
      return null;
    pvs.push({
      name,
      vg: field(row, 'vg_name') ?? '',
      bytes: size,
      freeBytes: free,
      peStartBytes: peStart,
      deviceBytes: device,
    });
  }
  const vgs: LvmVolumeGroup[] = [];
  for (const row of vgRows) {
    const name = field(row, 'vg_name');
    const free = bytes(row, 'vg_free');
    const extent = bytes(row, 'vg_extent_size');
    if (name === null || free === null || extent === null || extent === 0) return null;
    vgs.push({ name, freeBytes: free, extentBytes: extent });
  }
  const lvs: LvmLogicalVolume[] = [];
  for (const row of lvRows) {
    const name = field(row, 'lv_name');
    const vg = field(row, 'vg_name');
    const path = field(row, 'lv_path');
    const dmPath = field(row, 'lv_dm_path');
    const size = bytes(row, 'lv_size');
    if (name === null || vg === null || path === null || dmPath === null || size === null)
      return null;
    const devices = (field(row, 'devices') ?? '')
      .split(',')
      .map((device) => device.replace(/\(\d+\)$/, '').trim())
      .filter((device) => device !== '');
    const known = lvs.find((lv) => lv.vg === vg && lv.name === name);
    if (known) {
      for (const device of devices) if (!known.devices.includes(device)) known.devices.push(device);
    } else {
      lvs.push({ name, vg, path, dmPath, bytes: size, devices });
    }
  }
  return { pvs, vgs, lvs };
}
