import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  judgeHypervisorGrowth,
  type HypervisorGrowthState,
} from '../../../../src/vmwatcher/stage/hypervisor-growth.js';

const MI = 1024n * 1024n;

describe('judgeHypervisorGrowth', () => {
  // A 10Gi -> 20Gi Filesystem-mode PVC, overhead 0.055: disk.img may reach 19353 MiB at most, and
  // held at most 9676 MiB before; a real ext4 keeps some of the PVC for itself, so it ends below.
  const target = 19353n * MI;
  const oldCeiling = 9676n * MI;
  const table: Array<{
    name: string;
    options: Partial<Parameters<typeof judgeHypervisorGrowth>[0]>;
    state: HypervisorGrowthState;
    start: bigint | undefined;
  }> = [
    {
      name: 'Block: below the device size',
      options: {
        volumeMode: 'Block',
        readingBytes: 19n * 1024n * MI,
        targetBytes: 20n * 1024n * MI,
      },
      state: 'short',
      start: undefined,
    },
    {
      name: 'Block: the device size',
      options: {
        volumeMode: 'Block',
        readingBytes: 20n * 1024n * MI,
        targetBytes: 20n * 1024n * MI,
      },
      state: 'grown',
      start: undefined,
    },
    {
      name: 'Filesystem: first read, not grown (it is the start)',
      options: { readingBytes: 9400n * MI },
      state: 'short',
      start: 9400n * MI,
    },
    {
      name: 'Filesystem: above the recorded start, read once',
      options: {
        readingBytes: 19100n * MI,
        recordedStartBytes: 9400n * MI,
        previousBytes: 9400n * MI,
      },
      state: 'settling',
      start: 9400n * MI,
    },
    {
      name: 'Filesystem: above the start and read again at the same size, below the formula',
      options: {
        readingBytes: 19100n * MI,
        recordedStartBytes: 9400n * MI,
        previousBytes: 19100n * MI,
      },
      state: 'grown',
      start: 9400n * MI,
    },
    {
      name: 'Filesystem: first read came after the growth (the old ceiling is the start)',
      options: { readingBytes: 19100n * MI },
      state: 'settling',
      start: oldCeiling,
    },
    {
      name: 'Filesystem: at the most disk.img can reach, at once',
      options: { readingBytes: target },
      state: 'grown',
      start: oldCeiling,
    },
    {
      name: 'Filesystem: unchanged and stable is not growth',
      options: {
        readingBytes: 9400n * MI,
        recordedStartBytes: 9400n * MI,
        previousBytes: 9400n * MI,
      },
      state: 'short',
      start: 9400n * MI,
    },
    {
      name: 'Filesystem: without a known old size, the first read is the start',
      options: { readingBytes: 12000n * MI, oldCeilingBytes: undefined },
      state: 'short',
      start: 12000n * MI,
    },
  ];
  for (const row of table)
    it(row.name, () => {
      const growth = judgeHypervisorGrowth({
        volumeMode: 'Filesystem',
        readingBytes: 0n,
        targetBytes: target,
        recordedStartBytes: undefined,
        previousBytes: undefined,
        oldCeilingBytes: oldCeiling,
        ...row.options,
      });
      assert.strictEqual(growth.state, row.state);
      assert.strictEqual(growth.startBytes, row.start);
    });
});
