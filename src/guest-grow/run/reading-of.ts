import type { GuestLayout, StepCheck } from '../../fsresize/index.js';

/**
 * The reading a step's check names, in bytes, from a Linux guest's layout (see GuestReading):
 * undefined when the layout does not show it (a Windows reading, a device gone). Pure.
 */
export function readingOf(layout: GuestLayout, check: StepCheck): number | undefined {
  switch (check.reading) {
    case 'table-end': {
      const table = layout.partitionTables[check.of];
      return table?.lastLba == null ? undefined : (table.lastLba + 1) * table.sectorBytes;
    }
    case 'partition':
      for (const table of Object.values(layout.partitionTables)) {
        const partition = table.partitions.find((entry) => entry.node === check.of);
        if (partition !== undefined) return partition.size * table.sectorBytes;
      }
      return undefined;
    case 'kernel':
      return layout.blockDevices.find((device) => device.name === check.of)?.bytes;
    case 'physical-volume':
      return layout.lvm?.pvs.find((pv) => pv.name === check.of)?.bytes;
    case 'logical-volume':
      return layout.lvm?.lvs.find((lv) => lv.path === check.of)?.bytes;
    case 'filesystem':
      return layout.filesystems[check.of]?.bytes;
    default:
      return undefined;
  }
}
