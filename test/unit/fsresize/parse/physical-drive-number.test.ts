/**
 * physicalDriveNumber: the disk number of a Windows device path as qemu-ga on Windows writes a
 * disk's `dev` in guest-get-fsinfo (qga/commands-win32.c build_guest_disk_info:
 * \\.\PhysicalDrive and the volume extent's DiskNumber; a volume on no disk keeps its volume path).
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { physicalDriveNumber } from '../../../../src/fsresize/index.js';

describe('physicalDriveNumber', () => {
  const rows: Array<[string, number | undefined]> = [
    ['\\\\.\\PhysicalDrive0', 0],
    ['\\\\.\\PhysicalDrive12', 12],
    ['\\\\.\\physicaldrive3', 3],
    ['\\\\?\\Volume{4c1b02c0-0000-0000-0000-000000000004}', undefined],
    ['PhysicalDrive1', undefined],
    ['\\\\.\\PhysicalDrive1 ', undefined],
    ['/dev/vdb', undefined],
    ['vdb', undefined],
  ];
  for (const [device, number] of rows)
    it(`reads ${JSON.stringify(device)} as ${String(number)}`, () => {
      assert.strictEqual(physicalDriveNumber(device), number);
    });
});
