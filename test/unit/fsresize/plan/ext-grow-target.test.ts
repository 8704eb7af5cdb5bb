import { it } from 'mocha';
import { assert } from 'chai';
import { execFileSync } from 'node:child_process';
import { extGrowTarget } from '../../../../src/fsresize/plan/ext-grow-target.js';
import { growTargetBytes } from '../../../../src/fsresize/plan/grow-target-bytes.js';
import { parseAuxvPageSize } from '../../../../src/fsresize/parse/parse-auxv-page-size.js';
import {
  DEFAULT_PAGE_SIZE,
  systemPageSize,
} from '../../../../src/fsresize/devices/system-page-size.js';

const MiB = 1024 * 1024;

it('extGrowTarget: the device rounded down to whole blocks, and to whole pages when the page is larger (resize2fs with no size)', () => {
  assert.strictEqual(
    extGrowTarget(100 * MiB + 3072, 1024, 4096),
    100 * MiB,
    '3 KiB past a page boundary: never covered',
  );
  assert.strictEqual(extGrowTarget(100 * MiB + 4096, 1024, 4096), 100 * MiB + 4096);
  assert.strictEqual(
    extGrowTarget(100 * MiB + 3072, 1024, 1024),
    100 * MiB + 3072,
    'page = block: whole blocks',
  );
  assert.strictEqual(
    extGrowTarget(100 * MiB + 3072 + 512, 4096, 4096),
    100 * MiB,
    'a partial block never counts',
  );
  assert.strictEqual(
    extGrowTarget(64 * MiB + 60 * 1024, 4096, 65536),
    64 * MiB,
    '64 KiB pages (arm64, ppc64le)',
  );
  assert.strictEqual(
    extGrowTarget(64 * MiB + 8192, 65536, 4096),
    64 * MiB,
    'a block larger than the page: whole blocks',
  );
});

it("growTargetBytes: the page rule is resize2fs's, for ext only; xfs and btrfs may use the whole device", () => {
  const facts = { deviceBytes: 100 * MiB + 3072, blockBytes: 1024, extPageBytes: 4096 };
  for (const filesystem of ['ext2', 'ext3', 'ext4'])
    assert.strictEqual(growTargetBytes({ ...facts, filesystem }), 100 * MiB, filesystem);
  for (const filesystem of ['xfs', 'btrfs', null])
    assert.strictEqual(
      growTargetBytes({ ...facts, filesystem }),
      100 * MiB + 3072,
      String(filesystem),
    );
  assert.strictEqual(
    growTargetBytes({ filesystem: 'ext4', deviceBytes: 100 * MiB + 3072, blockBytes: 1024 }),
    100 * MiB + 3072,
    'no page size known: whole blocks',
  );
});

function auxv(
  entries: Array<[number, number]>,
  wordBytes: 4 | 8,
  littleEndian: boolean,
): Uint8Array {
  const bytes = new Uint8Array(entries.length * 2 * wordBytes);
  const view = new DataView(bytes.buffer);
  entries.flat().forEach((value, i) => {
    if (wordBytes === 8) view.setBigUint64(i * 8, BigInt(value), littleEndian);
    else view.setUint32(i * 4, value, littleEndian);
  });
  return bytes;
}

it('parseAuxvPageSize reads AT_PAGESZ (6) from 64-bit or 32-bit words, either byte order, up to AT_NULL', () => {
  const entries: Array<[number, number]> = [
    [33, 0x7ffd1000],
    [16, 0xbfebfbff],
    [6, 4096],
    [17, 100],
    [0, 0],
  ];
  assert.strictEqual(parseAuxvPageSize(auxv(entries, 8, true), 8, true), 4096);
  assert.strictEqual(parseAuxvPageSize(auxv(entries, 4, true), 4, true), 4096);
  assert.strictEqual(
    parseAuxvPageSize(
      auxv(
        [
          [6, 65536],
          [0, 0],
        ],
        8,
        false,
      ),
      8,
      false,
    ),
    65536,
    'big-endian (s390x, ppc64)',
  );
  assert.strictEqual(
    parseAuxvPageSize(
      auxv(
        [
          [6, 16384],
          [0, 0],
        ],
        4,
        false,
      ),
      4,
      false,
    ),
    16384,
  );
  assert.isNull(
    parseAuxvPageSize(
      auxv(
        [
          [33, 1],
          [0, 0],
          [6, 4096],
        ],
        8,
        true,
      ),
      8,
      true,
    ),
    'nothing after AT_NULL',
  );
  assert.isNull(
    parseAuxvPageSize(
      auxv(
        [
          [33, 1],
          [17, 100],
        ],
        8,
        true,
      ),
      8,
      true,
    ),
    'no AT_PAGESZ',
  );
  assert.isNull(
    parseAuxvPageSize(
      auxv(
        [
          [6, 3000],
          [0, 0],
        ],
        8,
        true,
      ),
      8,
      true,
    ),
    'not a power of two',
  );
  assert.isNull(parseAuxvPageSize(new Uint8Array(12), 8, true), 'shorter than one entry');
});

it("systemPageSize is the kernel's page size, as getconf PAGESIZE (sysconf) says", () => {
  const getconf = Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim());
  assert.strictEqual(systemPageSize(), getconf);
  assert.strictEqual(DEFAULT_PAGE_SIZE, 4096);
});
