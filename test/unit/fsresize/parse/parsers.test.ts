import { it } from 'mocha';
import { assert } from 'chai';
import { formatBytes } from '../../../../src/fsresize/index.js';
import { parseBlkidExport } from '../../../../src/fsresize/parse/parse-blkid-export.js';
import { parseBtrfsDumpSuper } from '../../../../src/fsresize/parse/parse-btrfs-dump-super.js';
import { parseExtSuperblock } from '../../../../src/fsresize/parse/parse-ext-superblock.js';
import { parseMountinfo } from '../../../../src/fsresize/parse/parse-mountinfo.js';
import { parseXfsStatfs } from '../../../../src/fsresize/parse/parse-xfs-statfs.js';
import { parseXfsSuperblock } from '../../../../src/fsresize/parse/parse-xfs-superblock.js';
import { xfsGrowfsAfterBytes } from '../../../../src/fsresize/plan/xfs-growfs-after-bytes.js';
import { extSuperblock, type ExtFields } from '../../../support/fsresize/ext-superblock.js';

it('parseBlkidExport reads TYPE, PTTYPE and UUID', () => {
  assert.deepStrictEqual(parseBlkidExport('DEVNAME=/dev/sdb\nTYPE=ext4\n'), {
    type: 'ext4',
    partitionTable: null,
    uuid: null,
  });
  assert.deepStrictEqual(parseBlkidExport('DEVNAME=/dev/sdb\nPTTYPE=gpt\n'), {
    type: null,
    partitionTable: 'gpt',
    uuid: null,
  });
  assert.deepStrictEqual(parseBlkidExport('DEVNAME=/dev/sdb\nTYPE=vfat\nPTTYPE=dos\n'), {
    type: 'vfat',
    partitionTable: 'dos',
    uuid: null,
  });
  assert.deepStrictEqual(
    parseBlkidExport('DEVNAME=/dev/loop1\nUUID=4742ea63-c61d-4c16-a601-a968e178a6a0\nTYPE=btrfs\n'),
    { type: 'btrfs', partitionTable: null, uuid: '4742ea63-c61d-4c16-a601-a968e178a6a0' },
  );
  assert.deepStrictEqual(parseBlkidExport(''), { type: null, partitionTable: null, uuid: null });
});

it('parseMountinfo reads fields, unescapes paths and derives read-only', () => {
  const text = [
    '22 27 0:21 / /proc rw,relatime - proc proc rw',
    '97 27 7:0 / /mnt/with\\040space rw,relatime - ext4 /dev/loop0 rw',
    '98 27 7:1 /sub /srv/ro ro,relatime shared:5 - xfs /dev/loop1 rw,attr2',
    '99 27 0:45 / /data rw - btrfs /dev/loop2 ro,space_cache=v2',
    'garbage',
  ].join('\n');
  const entries = parseMountinfo(text);
  assert.strictEqual(entries.length, 4);
  assert.deepStrictEqual(entries[1], {
    mountId: 97,
    parentId: 27,
    majorMinor: '7:0',
    root: '/',
    mountPoint: '/mnt/with space',
    mountOptions: ['rw', 'relatime'],
    fsType: 'ext4',
    source: '/dev/loop0',
    superOptions: ['rw'],
    readOnly: false,
  });
  assert.isTrue(entries[2]?.readOnly, 'per-mount ro');
  assert.strictEqual(entries[2]?.fsType, 'xfs', 'optional fields before the separator are skipped');
  assert.isTrue(entries[3]?.readOnly, 'superblock ro');
});

it('parseExtSuperblock: block count x block size, 64-bit high word only with INCOMPAT_64BIT', () => {
  assert.deepStrictEqual(parseExtSuperblock(extSuperblock(65536, 0)), {
    blockSize: 1024,
    blockCount: 65536,
    bytes: 64 * 1024 * 1024,
    checkNeeded: false,
    errorsRecorded: false,
    bit64: false,
    bigalloc: false,
  });
  assert.deepStrictEqual(parseExtSuperblock(extSuperblock(268435456, 2)), {
    blockSize: 4096,
    blockCount: 268435456,
    bytes: 2 ** 40,
    checkNeeded: false,
    errorsRecorded: false,
    bit64: false,
    bigalloc: false,
  });
  assert.isTrue(
    parseExtSuperblock(extSuperblock(268435456, 2, { bit64: true }))?.bit64,
    'INCOMPAT_64BIT',
  );
  assert.isFalse(
    parseExtSuperblock(extSuperblock(268435456, 2, { incompat: 0x2 | 0x40 | 0x200 }))?.bit64,
    'other incompat features',
  );
  assert.isTrue(
    parseExtSuperblock(extSuperblock(1000, 2, { roCompat: 0x200 }))?.bigalloc,
    'RO_COMPAT_BIGALLOC',
  );
  assert.isFalse(
    parseExtSuperblock(
      extSuperblock(1000, 2, { roCompat: 0x1 | 0x2 | 0x8 | 0x400, incompat: 0x200 }),
    )?.bigalloc,
    'other ro_compat features (sparse_super, large_file, huge_file, metadata_csum), and flex_bg in incompat',
  );
  assert.strictEqual(
    parseExtSuperblock(extSuperblock(0, 2, { bit64: true, high: 1 }))?.bytes,
    2 ** 32 * 4096,
  );
  assert.strictEqual(
    parseExtSuperblock(extSuperblock(10, 2, { high: 1 }))?.blockCount,
    10,
    'high word ignored without 64bit',
  );
  assert.isNull(parseExtSuperblock(extSuperblock(10, 2, { magic: 0x1234 })));
  assert.isNull(parseExtSuperblock(new Uint8Array(10)));
});

it('parseExtSuperblock: checkNeeded follows resize2fs (not clean, errors, mounted after the last check, free > total, orphans, journal to recover)', () => {
  const needs = (fields: ExtFields) =>
    parseExtSuperblock(extSuperblock(1000, 2, fields))?.checkNeeded;
  assert.isFalse(needs({}), 'clean, checked, never mounted');
  assert.isFalse(needs({ mountTime: 1_700_000_000 }), 'mounted in the second of the last check');
  assert.isTrue(needs({ mountTime: 1_700_000_001 }), 'mounted after the last check');
  assert.isFalse(
    needs({ mountTime: 1_700_000_001, lastCheckHi: 1 }),
    'the high byte of the last check (after 2038) counts',
  );
  assert.isTrue(needs({ state: 0 }), 'not cleanly unmounted');
  assert.isTrue(needs({ state: 0x1 | 0x2 }), 'errors recorded');
  assert.isTrue(needs({ freeBlocks: 1001 }), 'more free blocks than blocks');
  assert.isFalse(
    needs({ freeBlocks: 1000, inodes: 256, freeInodes: 256 }),
    'everything free is not too much',
  );
  assert.isTrue(needs({ inodes: 256, freeInodes: 257 }), 'more free inodes than inodes');
  assert.isTrue(needs({ lastOrphan: 12 }), 'an orphan inode list to process (s_last_orphan)');
  assert.isTrue(needs({ incompat: 0x4 }), 'the journal needs recovery (INCOMPAT_RECOVER)');
  assert.isFalse(
    needs({ incompat: 0x2 | 0x40 | 0x200 }),
    'other incompat features (filetype, extents, flex_bg) do not',
  );
});

it('parseExtSuperblock: errorsRecorded is the error bit of s_state alone ("clean with errors", "not clean with errors")', () => {
  const errors = (fields: ExtFields) =>
    parseExtSuperblock(extSuperblock(1000, 2, fields))?.errorsRecorded;
  assert.isFalse(errors({}));
  assert.isTrue(errors({ state: 0x1 | 0x2 }), 'clean with errors');
  assert.isTrue(errors({ state: 0x2 }), 'not clean with errors');
  assert.isFalse(errors({ state: 0 }), 'not clean, no errors recorded');
  assert.isFalse(
    errors({ mountTime: 1_700_000_001, lastOrphan: 12, incompat: 0x4 }),
    'the other reasons for a check are no errors',
  );
});

it('parseXfsSuperblock reads sb_blocksize and sb_dblocks behind the XFSB magic', () => {
  const bytes = new Uint8Array(512);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x58465342, false);
  view.setUint32(4, 4096, false);
  view.setBigUint64(8, 81920n, false);
  assert.deepStrictEqual(parseXfsSuperblock(bytes), {
    blockSize: 4096,
    dataBlocks: 81920,
    bytes: 320 * 1024 * 1024,
  });
  view.setUint32(0, 0, false);
  assert.isNull(parseXfsSuperblock(bytes));
});

it('parseXfsStatfs: geom.bsize x geom.datablocks', () => {
  const out =
    'fd.path = "mx"\nstatfs.f_bsize = 4096\ngeom.bsize = 4096\ngeom.agcount = 4\ngeom.datablocks = 262144\n';
  assert.deepStrictEqual(parseXfsStatfs(out), {
    blockSize: 4096,
    dataBlocks: 262144,
    bytes: 2 ** 30,
  });
  assert.isNull(parseXfsStatfs('statfs.f_bsize = 4096\n'));
});

it('xfsGrowfsAfterBytes: the size xfs_growfs reports growing to, only when it grew from the size measured before', () => {
  // What xfs_growfs 6.1 prints after its geometry table when it grew the data section.
  const grown =
    'meta-data=/dev/loop0 isize=512 agcount=4, agsize=65536 blks\ndata     =   bsize=4096   blocks=262144, imaxpct=25\ndata blocks changed from 262144 to 524288\n';
  assert.strictEqual(xfsGrowfsAfterBytes(grown, 2 ** 30, 4096), 2 ** 31);
  // Another size before than voe measured: the filesystem changed in between, so it is measured again.
  assert.isNull(xfsGrowfsAfterBytes(grown, 2 ** 30 + 4096, 4096));
  assert.isNull(
    xfsGrowfsAfterBytes('meta-data=/dev/loop0\ndata size unchanged, skipping\n', 2 ** 30, 4096),
  );
  assert.isNull(xfsGrowfsAfterBytes('', 2 ** 30, 4096));
  assert.isNull(xfsGrowfsAfterBytes(grown, 2 ** 30, null));
  // Only the whole line counts.
  assert.isNull(
    xfsGrowfsAfterBytes('old data blocks changed from 262144 to 524288 (no)\n', 2 ** 30, 4096),
  );
});

it("parseBtrfsDumpSuper reads this device's size, sector size, devid and device count", () => {
  const out =
    'superblock: bytenr=65536, device=/dev/loop0\nmagic\t\t\t_BHRfS_M [match]\ntotal_bytes\t\t1073741824\nsectorsize\t\t4096\nnum_devices\t\t2\ndev_item.total_bytes\t536870912\ndev_item.devid\t\t2\n';
  assert.deepStrictEqual(parseBtrfsDumpSuper(out), {
    bytes: 536870912,
    sectorSize: 4096,
    devid: 2,
    devices: 2,
  });
  assert.isNull(parseBtrfsDumpSuper('total_bytes\t\t1\n'));
});

it('formatBytes uses binary units', () => {
  assert.strictEqual(formatBytes(512), '512 B');
  assert.strictEqual(formatBytes(2 ** 30), '1.0 GiB');
  assert.strictEqual(formatBytes(2 ** 40), '1.0 TiB');
  assert.strictEqual(formatBytes(320 * 2 ** 20), '320.0 MiB');
});
