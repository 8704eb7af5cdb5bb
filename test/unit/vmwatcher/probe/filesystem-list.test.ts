import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  filesystemOfDisk,
  filesystemsOfFsinfo,
  parseFilesystemList,
} from '../../../../src/vmwatcher/probe/filesystem-list.js';

describe('filesystem list', () => {
  const list = parseFilesystemList({
    items: [
      {
        diskName: 'vda1',
        mountPoint: '/',
        fileSystemType: 'ext4',
        usedBytes: 1_000,
        totalBytes: 9_000_000_000,
        disk: [{ serial: 'root-0', busType: 'virtio' }],
      },
      {
        diskName: 'vdb',
        mountPoint: '/data',
        fileSystemType: 'xfs',
        totalBytes: 19_000_000_000,
        disk: [{ serial: 'data-1', busType: 'virtio' }],
      },
      { diskName: 'vdb1', mountPoint: '/boot', totalBytes: 500_000_000, disk: [] },
    ],
  });

  it("reads KubeVirt's filesystemlist", () => {
    assert.lengthOf(list, 3);
    assert.deepStrictEqual(list[1], {
      diskName: 'vdb',
      mountPoint: '/data',
      totalBytes: 19_000_000_000n,
      disks: [{ serial: 'data-1', busType: 'virtio' }],
    });
    assert.deepStrictEqual(parseFilesystemList({}), []);
  });

  it("reads the agent's guest-get-fsinfo into the same shape", () => {
    const fs = filesystemsOfFsinfo([
      {
        name: 'vdb',
        mountpoint: '/data',
        type: 'ext4',
        'total-bytes': 19_000_000_000,
        'used-bytes': 1,
        disk: [{ serial: 'data-1', 'bus-type': 'virtio', dev: '/dev/vdb' }],
      },
    ]);
    assert.deepStrictEqual(fs, [
      {
        diskName: 'vdb',
        mountPoint: '/data',
        totalBytes: 19_000_000_000n,
        disks: [{ serial: 'data-1', busType: 'virtio' }],
      },
    ]);
  });

  it("finds a disk's largest filesystem by serial, else by target and its partitions", () => {
    assert.strictEqual(
      filesystemOfDisk(list, { serial: 'data-1', bus: 'virtio', target: 'vdz' })?.mountPoint,
      '/data',
    );
    assert.strictEqual(
      filesystemOfDisk(list, { serial: undefined, bus: 'virtio', target: 'vdb' })?.mountPoint,
      '/data',
    );
    assert.strictEqual(
      filesystemOfDisk(list, { serial: undefined, bus: 'virtio', target: 'vda' })?.mountPoint,
      '/',
    );
    assert.isUndefined(filesystemOfDisk(list, { serial: 'none', bus: 'virtio', target: 'vda' }));
    assert.isUndefined(filesystemOfDisk(list, { serial: undefined, bus: 'virtio', target: 'vd' }));
  });
});
