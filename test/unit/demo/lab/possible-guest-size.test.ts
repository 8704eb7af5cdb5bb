import { describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { possibleGuestSize } from '../../../../src/demo/lab/possible-guest-size.js';
import { usableSpace } from '../../../../src/demo/lab/usable-space.js';
import { VmLabError } from '../../../../src/demo/lab/vm-lab-error.js';
import { expectThrow } from '../../../support/expect-error.js';
import { onCleanup } from '../../../support/cleanup.js';

const MI = 1024n ** 2n;
const GI = 1024n ** 3n;

describe("the lab's KubeVirt disk.img size (virtwrap/manager.go possibleGuestSize)", () => {
  const cases: Array<{
    name: string;
    capacity: bigint;
    overhead: string;
    usable: bigint;
    bytes: bigint;
  }> = [
    {
      // 0.945 x 2 GiB = 2029372047.36 -> 2029372047 -> 1935 MiB.
      name: 'a filesystem with room beyond the capacity: sized from the capacity',
      capacity: 2n * GI,
      overhead: '0.055',
      usable: 3n * GI,
      bytes: 1935n * MI,
    },
    {
      // An XFS of 2 GiB on a loop device: 4096-byte blocks, 508,000 of them free (2,080,768,000
      // bytes) and nothing allocated yet: 0.945 x 2080768000 = 1966325760 -> 1875 MiB.
      name: "a real filesystem's free space below the capacity: sized from what is usable",
      capacity: 2n * GI,
      overhead: '0.055',
      usable: 508_000n * 4096n,
      bytes: 1875n * MI,
    },
    {
      // disk.img holds 1 GiB allocated, the filesystem 500 MiB more free: 0.945 x 1.5 GiB.
      name: "disk.img's allocated bytes count as usable",
      capacity: 4n * GI,
      overhead: '0.055',
      usable: GI + 500n * MI,
      bytes: 1440n * MI,
    },
    {
      name: 'no overhead: the capacity itself, aligned down to 1 MiB',
      capacity: 10n * GI + 123n,
      overhead: '0',
      usable: 20n * GI,
      bytes: 10n * GI,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      assert.strictEqual(
        possibleGuestSize({
          capacity: c.capacity,
          filesystemOverhead: c.overhead,
          usable: c.usable,
        }),
        c.bytes,
      );
    });

  it('refuses a missing or unparsable overhead and a size below 1 MiB, as possibleGuestSize is not ok', () => {
    for (const [overhead, usable] of [
      [undefined, GI],
      ['a lot', GI],
      ['1', GI],
      ['0.055', MI],
    ] as const)
      expectThrow(
        () => possibleGuestSize({ capacity: GI, filesystemOverhead: overhead, usable }),
        (error: VmLabError) => error instanceof VmLabError && error.code === 'VMLAB_DOMAIN_FAILED',
        `overhead ${String(overhead)}, usable ${usable}`,
      );
  });

  it("counts a file's allocated blocks and its filesystem's free space (statfs f_bavail x f_bsize)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-usable-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'disk.img');
    await writeFile(file, Buffer.alloc(1024 * 1024, 1));
    const usable = await usableSpace(file);
    const fs = await statfs(dir, { bigint: true });
    const free = fs.bavail * fs.bsize;
    // Other writers on the machine move the free space; the file's 1 MiB is counted once.
    assert.isAtLeast(Number(usable - free), Number(MI) - 64 * 1024 * 1024);
    assert.isAtMost(Number(usable - free), Number(MI) + 64 * 1024 * 1024);
  });
});
