import { describe, it } from 'mocha';
import { assert } from 'chai';
import { isFsResizeError } from '../../../../src/fsresize/index.js';
import { FsResizeError } from '../../../../src/fsresize/model/fsresize-error.js';
import type { GrowPlan } from '../../../../src/fsresize/model/grow-plan.js';
import type { Inspection } from '../../../../src/fsresize/model/inspection.js';
import { planGrow } from '../../../../src/fsresize/plan/plan-grow.js';
import {
  checkedResult,
  dryRunResult,
  grownResult,
  noopResult,
  type CheckPlan,
  type ToolPlan,
} from '../../../../src/fsresize/plan/plan-results.js';
import { expectThrow } from '../../../support/expect-error.js';

const MiB = 1024 * 1024;

/** An ext4 of 64 MiB on a 256 MiB /dev/sdb, unmounted, that nothing else uses. */
function inspection(overrides: Partial<Inspection> = {}): Inspection {
  return {
    device: '/dev/sdb',
    devicePath: '/dev/sdb',
    majorMinor: '8:16',
    deviceBytes: 256 * MiB,
    deviceReadOnly: false,
    filesystem: 'ext4',
    partitionTable: null,
    filesystemBytes: 64 * MiB,
    blockBytes: 4096,
    mountPoint: null,
    mountReadOnly: false,
    mountPointStacked: false,
    mountPoints: [],
    hiddenMountPoints: [],
    unusableMountPoints: [],
    btrfs: null,
    users: { openedBy: [], unreadable: [], holders: [], disk: null },
    extCheckNeeded: false,
    extErrors: false,
    extPageBytes: 4096,
    ext64bit: true,
    extBigalloc: false,
    ...overrides,
  };
}

const mountedXfs = inspection({
  filesystem: 'xfs',
  mountPoint: '/var/lib/data',
  mountPoints: ['/var/lib/data'],
  users: null,
});

/** The plan planGrow makes for `facts`, which must be of `kind`. */
function planOf<K extends GrowPlan['kind']>(
  facts: Inspection,
  kind: K,
): Extract<GrowPlan, { kind: K }> {
  const plan = planGrow(facts);
  assert.strictEqual(plan.kind, kind, JSON.stringify(plan));
  return plan as Extract<GrowPlan, { kind: K }>;
}

/** The fields of a result in the order `voe fsresize grow --json` prints them. */
const REPORTED_FIELDS = [
  'device',
  'filesystem',
  'mountPoint',
  'deviceBytes',
  'beforeBytes',
  'dryRun',
  'action',
  'reason',
  'afterBytes',
  'command',
  'precheck',
];
const RAN_FIELDS = [...REPORTED_FIELDS.filter((field) => field !== 'reason'), 'reason'];

describe('plan results: what grow reports for a plan', () => {
  describe('noopResult', () => {
    const cases: Array<{ title: string; facts: Inspection; dryRun: boolean; reason: RegExp }> = [
      {
        title: 'a filesystem that already fills its device',
        facts: inspection({ filesystemBytes: 256 * MiB }),
        dryRun: false,
        reason: /^ext4 on \/dev\/sdb already fills the device \(.*\): nothing to grow$/,
      },
      {
        title: 'an unformatted device, in a dry run',
        facts: inspection({ filesystem: null, filesystemBytes: null, blockBytes: null }),
        dryRun: true,
        reason: /^\/dev\/sdb is not formatted/,
      },
      {
        title: 'a read-only device',
        facts: inspection({ deviceReadOnly: true }),
        dryRun: false,
        reason: /^\/dev\/sdb is read-only \(blockdev --getro = 1\)/,
      },
    ];
    for (const { title, facts, dryRun, reason } of cases) {
      it(`${title}: the plan's reason, nothing run, the size as inspected`, () => {
        const result = noopResult(planOf(facts, 'noop'), facts, dryRun);
        assert.deepStrictEqual(Object.keys(result), REPORTED_FIELDS);
        assert.match(result.reason, reason);
        assert.deepInclude(result, {
          action: 'noop',
          device: '/dev/sdb',
          filesystem: facts.filesystem,
          mountPoint: null,
          deviceBytes: 256 * MiB,
          beforeBytes: facts.filesystemBytes,
          afterBytes: facts.filesystemBytes,
          dryRun,
          command: null,
          precheck: null,
        });
      });
    }
  });

  describe('dryRunResult', () => {
    const cases: Array<{
      title: string;
      facts: Inspection;
      reason: string;
      command: string[] | null;
      precheck: string[] | null;
    }> = [
      {
        title: 'an online xfs grow',
        facts: mountedXfs,
        reason:
          'dry run: would grow xfs on /dev/sdb from 64.0 MiB to 256.0 MiB online (mounted at /var/lib/data) with: xfs_growfs -d /var/lib/data',
        command: ['xfs_growfs', '-d', '/var/lib/data'],
        precheck: null,
      },
      {
        title: 'an offline ext4 grow',
        facts: inspection(),
        reason:
          'dry run: would grow ext4 on /dev/sdb from 64.0 MiB to 256.0 MiB offline with: resize2fs /dev/sdb',
        command: ['resize2fs', '/dev/sdb'],
        precheck: null,
      },
      {
        title: 'an offline ext4 grow that resize2fs would refuse unchecked',
        facts: inspection({ extCheckNeeded: true }),
        reason:
          'dry run: would check and grow ext4 on /dev/sdb from 64.0 MiB to 256.0 MiB offline with: e2fsck -f -p /dev/sdb && resize2fs /dev/sdb',
        command: ['resize2fs', '/dev/sdb'],
        precheck: ['e2fsck', '-f', '-p', '/dev/sdb'],
      },
      {
        title: 'a full ext4 that records errors (the check only)',
        facts: inspection({ filesystemBytes: 256 * MiB, extErrors: true }),
        reason:
          'dry run: ext4 on /dev/sdb already fills the device (256.0 MiB of 256.0 MiB) but records errors (e.g. a resize stopped midway): would check it with: e2fsck -f -p /dev/sdb',
        command: null,
        precheck: ['e2fsck', '-f', '-p', '/dev/sdb'],
      },
    ];
    for (const { title, facts, reason, command, precheck } of cases) {
      it(`${title}: says what would run, with the check's exitCode null`, () => {
        const plan = planGrow(facts);
        assert.oneOf(plan.kind, ['grow', 'check'], JSON.stringify(plan));
        const result = dryRunResult(plan as CheckPlan | ToolPlan, facts);
        assert.deepStrictEqual(Object.keys(result), REPORTED_FIELDS);
        assert.deepStrictEqual(result, {
          device: '/dev/sdb',
          filesystem: facts.filesystem,
          mountPoint: facts.mountPoint,
          deviceBytes: 256 * MiB,
          beforeBytes: facts.filesystemBytes,
          dryRun: true,
          action: 'noop',
          reason,
          afterBytes: facts.filesystemBytes,
          command,
          precheck: precheck === null ? null : { command: precheck, exitCode: null },
        });
      });
    }
  });

  describe('checkedResult', () => {
    const facts = inspection({ filesystemBytes: 256 * MiB, extErrors: true });
    for (const [exitCode, meaning] of [
      [0, 'exit 0: no errors'],
      [1, 'exit 1: errors corrected'],
    ] as const) {
      it(`a check-only plan whose e2fsck ended ${exitCode}: nothing to grow, the check reported`, () => {
        const checked = { command: ['e2fsck', '-f', '-p', '/dev/sdb'], exitCode };
        const result = checkedResult(planOf(facts, 'check'), facts, checked);
        assert.deepStrictEqual(Object.keys(result), RAN_FIELDS);
        assert.deepInclude(result, {
          action: 'noop',
          dryRun: false,
          command: null,
          precheck: checked,
          afterBytes: 256 * MiB,
        });
        assert.strictEqual(
          result.reason,
          `ext4 on /dev/sdb already fills the device (256.0 MiB of 256.0 MiB) but records errors (e.g. a resize stopped midway): checked it (e2fsck -f -p /dev/sdb, ${meaning}); nothing to grow`,
        );
      });
    }
  });

  describe('grownResult', () => {
    const precheck = { command: ['e2fsck', '-f', '-p', '/dev/sdb'], exitCode: 1 };
    const cases: Array<{
      title: string;
      facts: Inspection;
      command: string[];
      precheck: typeof precheck | null;
      afterBytes: number;
      action: 'grown' | 'noop';
      reason: string;
    }> = [
      {
        title: 'grown online',
        facts: mountedXfs,
        command: ['xfs_growfs', '-d', '/var/lib/data'],
        precheck: null,
        afterBytes: 256 * MiB,
        action: 'grown',
        reason: 'grew xfs on /dev/sdb from 64.0 MiB to 256.0 MiB online (mounted at /var/lib/data)',
      },
      {
        title: 'grown offline after a check that corrected errors',
        facts: inspection({ extCheckNeeded: true }),
        command: ['resize2fs', '/dev/sdb'],
        precheck,
        afterBytes: 256 * MiB,
        action: 'grown',
        reason:
          'checked (e2fsck -f -p /dev/sdb, exit 1: errors corrected) and grew ext4 on /dev/sdb from 64.0 MiB to 256.0 MiB offline',
      },
      {
        title: 'the tool succeeded but the filesystem stayed at its size',
        facts: inspection(),
        command: ['resize2fs', '/dev/sdb'],
        precheck: null,
        afterBytes: 64 * MiB,
        action: 'noop',
        reason:
          'resize2fs /dev/sdb succeeded but ext4 on /dev/sdb stayed at 64.0 MiB: the remaining 192.0 MiB is too small for the filesystem to use',
      },
    ];
    for (const c of cases) {
      it(`${c.title}: ${c.action}, with the size measured after`, () => {
        const result = grownResult(c.facts, c.command, c.precheck, c.afterBytes);
        assert.deepStrictEqual(Object.keys(result), RAN_FIELDS);
        assert.deepStrictEqual(result, {
          device: '/dev/sdb',
          filesystem: c.facts.filesystem,
          mountPoint: c.facts.mountPoint,
          deviceBytes: 256 * MiB,
          beforeBytes: 64 * MiB,
          dryRun: false,
          action: c.action,
          afterBytes: c.afterBytes,
          command: c.command,
          precheck: c.precheck,
          reason: c.reason,
        });
      });
    }

    for (const ran of [null, precheck]) {
      it(`a filesystem left smaller than before${ran ? ' (after a check)' : ''} is FSRESIZE_DEVICE_CHANGED, never a no-op`, () => {
        const error = expectThrow(
          () => grownResult(inspection(), ['resize2fs', '/dev/sdb'], ran, 32 * MiB),
          FsResizeError,
        );
        if (!isFsResizeError(error)) return assert.fail(String(error));
        assert.strictEqual(error.code, 'FSRESIZE_DEVICE_CHANGED');
        assert.match(
          error.message,
          /resize2fs \/dev\/sdb left ext4 on \/dev\/sdb smaller than before \(32\.0 MiB instead of 64\.0 MiB\): the device was made smaller while it ran/,
        );
        assert.strictEqual(
          error.message.startsWith(
            'checked (e2fsck -f -p /dev/sdb, exit 1: errors corrected) and ',
          ),
          ran !== null,
        );
        assert.deepStrictEqual(error.details, ran ? { precheck: ran } : {});
      });
    }
  });
});
