import { describe, it } from 'mocha';
import { assert } from 'chai';
import { deriveStage, type StageInput } from '../../../../src/vmwatcher/derive-stage.js';
import { Phase, StageReason, type PhaseValue } from '../../../../src/vmwatcher/index.js';
import { WaitingFor, type WaitingForValue } from '../../../../src/vmwatcher/expansion-phase.js';
import { nextStatus } from '../../../../src/vmwatcher/next-status.js';
import type { GuestGrowthInput } from '../../../../src/vmwatcher/stage/guest-growth-verdict.js';
import type { GuestFilesystemStatus } from '../../../../src/vmwatcher/volume-expansion.js';
import type { VirtualMachineInstance } from '../../../../src/model/index.js';
import {
  claim,
  expansion,
  input,
  instance,
  launcher,
  MINUTE,
  NOW,
  volume,
} from '../../../support/vmwatcher/expansion-fixtures.js';

const GI = 1024n ** 3n;
/** ext4 on /dev/vdb1 (GPT, from sector 2048), 4 KiB blocks, before and after a 10 -> 20 GiB disk. */
const EXT4_BEFORE = 10_736_349_184n;
const EXT4_AFTER = 21_473_767_424n;
const GROWPART = 'growpart /dev/vdb 1';
const RESIZE2FS = 'resize2fs /dev/vdb1';

/** The guest sees disk vda (its vdb) at 20 GiB: the point today's Completed is written. */
function seen(growth: GuestGrowthInput | undefined, vmi?: VirtualMachineInstance): StageInput {
  const running = vmi ?? instance({ capacity: '20Gi' });
  return input({
    pvc: claim({ capacity: '20Gi' }),
    pv: volume('20Gi'),
    vmi: running,
    pods: [launcher(running)],
    probe: { hypervisorBytes: 20n * GI, guestBytes: 20n * GI, guestDevice: 'vdb' },
    guestGrowth: growth,
  });
}

const optedIn = { grow: true, by: 'vm' } as const;
const byNamespace = { grow: true, by: 'namespace' } as const;
const notAsked = { grow: false, why: 'not-asked' } as const;
const switchOff = { grow: false, why: 'off' } as const;

interface Row {
  name: string;
  input: () => StageInput;
  phase: PhaseValue;
  waitingFor: WaitingForValue | undefined;
  reason: string;
  says?: string[];
  saysNot?: string[];
  guestFilesystem?: GuestFilesystemStatus;
}

const ROWS: Row[] = [
  {
    name: 'no grower configured: Completed as before, nothing about the filesystem',
    input: () => seen(undefined),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    saysNot: ['filesystem'],
  },
  {
    name: 'not opted in: Completed, the message gives the commands for that guest',
    input: () =>
      seen({ optIn: notAsked, plan: { kind: 'planned', commands: [GROWPART, RESIZE2FS] } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: [
      `run there ${GROWPART} && ${RESIZE2FS}`,
      'voe guest grow default/vm1 --disk disk-0 does it once',
      'storage.voe.dev/grow-guest-filesystem: "true"',
    ],
    guestFilesystem: {
      result: 'Planned',
      commands: [{ command: GROWPART }, { command: RESIZE2FS }],
    },
  },
  {
    name: 'not opted in, the switch off: no word of the annotation, which would do nothing',
    input: () => seen({ optIn: switchOff, plan: { kind: 'planned', commands: [RESIZE2FS] } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: [`run there ${RESIZE2FS}`, 'voe guest grow default/vm1 --disk disk-0 does it once'],
    saysNot: ['grow-guest-filesystem'],
  },
  {
    name: 'not opted in, the filesystem already fills the disk',
    input: () => seen({ optIn: notAsked, plan: { kind: 'nothing-to-do' } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['already fills it'],
    guestFilesystem: { result: 'NothingToDo' },
  },
  {
    name: 'not opted in, the plan refused: its reason and remedy',
    input: () =>
      seen({
        optIn: notAsked,
        plan: {
          kind: 'refused',
          code: 'GUESTGROW_NOT_LAST_PARTITION',
          reason: 'the filesystem on /dev/vdb1 is on partition 1, and partition 2 follows it',
          remedy: 'move or remove the partition after it, or use the new space as a new partition',
        },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['partition 2 follows it (GUESTGROW_NOT_LAST_PARTITION)', 'move or remove'],
    guestFilesystem: { result: 'Refused', code: 'GUESTGROW_NOT_LAST_PARTITION' },
  },
  {
    name: "not opted in, the guest's layout unreadable: the message says so",
    input: () =>
      seen({
        optIn: notAsked,
        plan: { kind: 'unreadable', reason: 'guest-exec of lsblk timed out after 20 s' },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestSeesNewSize,
    says: ['layout could not be read (guest-exec of lsblk timed out after 20 s)'],
    guestFilesystem: { result: 'Unreadable' },
  },
  {
    name: 'opted in, the growth not done yet: GuestFilesystemGrowing, waiting for the guest',
    input: () => seen({ optIn: optedIn, outcome: undefined }),
    phase: Phase.GuestFilesystemGrowing,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.GrowingGuestFilesystem,
    says: ['the VM opts in', 'voe grows its partition and filesystem through the guest agent.'],
  },
  {
    name: 'opted in by the Namespace: says so',
    input: () => seen({ optIn: byNamespace, outcome: undefined }),
    phase: Phase.GuestFilesystemGrowing,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.GrowingGuestFilesystem,
    says: ['its Namespace default opts in'],
  },
  {
    name: 'opted in, the VMI migrating: GuestFilesystemGrowing, waiting for the migration',
    input: () => {
      const migrating = instance({ capacity: '20Gi' });
      migrating.status = {
        ...migrating.status,
        migrationState: {
          sourcePod: 'virt-launcher-vm1-x7k2p',
          targetPod: 'virt-launcher-vm1-q9w8e',
        },
      };
      return seen({ optIn: optedIn, outcome: undefined }, migrating);
    },
    phase: Phase.GuestFilesystemGrowing,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.GrowingGuestFilesystem,
    says: ['once the VMI is no longer migrating'],
  },
  {
    name: 'opted in, the VMI paused: waits',
    input: () => {
      const paused = instance({ capacity: '20Gi' });
      paused.status = {
        ...paused.status,
        conditions: [...(paused.status?.conditions ?? []), { type: 'Paused', status: 'True' }],
      };
      return seen({ optIn: optedIn, outcome: undefined }, paused);
    },
    phase: Phase.GuestFilesystemGrowing,
    waitingFor: WaitingFor.Guest,
    reason: StageReason.GrowingGuestFilesystem,
    says: ['once the VMI is no longer paused'],
  },
  {
    name: 'opted in, grown: Completed with the bytes before and after and what ran',
    input: () =>
      seen({
        optIn: optedIn,
        outcome: {
          kind: 'grown',
          mountPoint: '/data',
          beforeBytes: EXT4_BEFORE,
          afterBytes: EXT4_AFTER,
          ran: [
            {
              command: GROWPART,
              exitCode: 0,
              output:
                'CHANGED: partition=1 start=2048 old: size=20969439 end=20971486 new: size=41940959 end=41943006',
            },
            {
              command: RESIZE2FS,
              exitCode: 0,
              output:
                'resize2fs 1.47.0 (5-Feb-2023)\nFilesystem at /dev/vdb1 is mounted on /data; on-line resizing required\nThe filesystem on /dev/vdb1 is now 5242619 (4k) blocks long.',
            },
          ],
        },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestFilesystemGrown,
    says: [
      `voe grew its filesystem /data on vdb from ${EXT4_BEFORE} to ${EXT4_AFTER} bytes`,
      `${GROWPART} (exit 0); ${RESIZE2FS} (exit 0)`,
    ],
  },
  {
    name: 'opted in, nothing to do (grown already): Completed, GuestFilesystemGrown',
    input: () => seen({ optIn: optedIn, outcome: { kind: 'nothing-to-do' } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestFilesystemGrown,
    says: ['already fills the disk'],
    guestFilesystem: { result: 'NothingToDo' },
  },
  {
    name: 'opted in, refused: Completed at block level, GuestFilesystemNotGrown with reason and remedy',
    input: () =>
      seen({
        optIn: optedIn,
        outcome: {
          kind: 'refused',
          code: 'GUESTGROW_TOOLS_MISSING',
          reason: 'the guest lacks resize2fs',
          remedy:
            'install them in the guest (apt-get install e2fsprogs; dnf install e2fsprogs) and retry',
        },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestFilesystemNotGrown,
    says: [
      'the expansion of default/vm1-disk-0-kq8zt to 20Gi is complete',
      'was not grown: the guest lacks resize2fs (GUESTGROW_TOOLS_MISSING); nothing ran.',
      'Install them in the guest (apt-get install e2fsprogs; dnf install e2fsprogs) and retry; then voe guest grow default/vm1 --disk disk-0 --dry-run shows what is left.',
    ],
    guestFilesystem: { result: 'Refused', code: 'GUESTGROW_TOOLS_MISSING' },
  },
  {
    name: 'opted in, failed midway: Completed, GuestFilesystemNotGrown, the commands run',
    input: () =>
      seen({
        optIn: optedIn,
        outcome: {
          kind: 'failed',
          code: 'GUESTGROW_COMMAND_FAILED',
          message: 'resize2fs /dev/vdb1 exited 1',
          ran: [
            { command: GROWPART, exitCode: 0, output: 'CHANGED: partition=1' },
            { command: RESIZE2FS, exitCode: 1, output: 'resize2fs: Permission denied' },
          ],
        },
      }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestFilesystemNotGrown,
    says: [
      'resize2fs /dev/vdb1 exited 1 (GUESTGROW_COMMAND_FAILED)',
      `ran ${GROWPART} (exit 0); ${RESIZE2FS} (exit 1), and stopped there`,
      'voe guest grow default/vm1 --disk disk-0 does what is left',
    ],
    guestFilesystem: {
      result: 'Failed',
      code: 'GUESTGROW_COMMAND_FAILED',
      commands: [
        { command: GROWPART, exitCode: 0, output: 'CHANGED: partition=1' },
        { command: RESIZE2FS, exitCode: 1, output: 'resize2fs: Permission denied' },
      ],
    },
  },
  {
    name: "opted in, the guest's layout unreadable: GuestFilesystemNotGrown, nothing ran",
    input: () =>
      seen({ optIn: optedIn, outcome: { kind: 'unreadable', reason: 'the agent did not answer' } }),
    phase: Phase.Completed,
    waitingFor: undefined,
    reason: StageReason.GuestFilesystemNotGrown,
    says: ['could not be read (the agent did not answer); nothing ran'],
    guestFilesystem: { result: 'Unreadable' },
  },
];

describe('deriveStage: the guest filesystem once the guest sees the grown disk', () => {
  for (const row of ROWS)
    it(row.name, () => {
      const stage = deriveStage(row.input());
      assert.strictEqual(stage.phase, row.phase, stage.message);
      assert.strictEqual(stage.waitingFor, row.waitingFor);
      assert.strictEqual(stage.reason, row.reason);
      for (const part of row.says ?? []) assert.include(stage.message, part);
      for (const part of row.saysNot ?? []) assert.notInclude(stage.message, part);
      if (row.guestFilesystem) assert.deepStrictEqual(stage.guestFilesystem, row.guestFilesystem);
      // The guest's size is recorded whatever the filesystem's fate.
      assert.strictEqual(stage.sizes.guest, String(20n * GI));
    });

  it('records a grown filesystem in the status: bytes before and after, each command', () => {
    const stage = deriveStage(
      seen({
        optIn: optedIn,
        outcome: {
          kind: 'grown',
          mountPoint: '/data',
          beforeBytes: EXT4_BEFORE,
          afterBytes: EXT4_AFTER,
          ran: [{ command: RESIZE2FS, exitCode: 0, output: 'x'.repeat(5000) }],
        },
      }),
    );
    const status = nextStatus(undefined, stage, NOW);
    assert.strictEqual(status.guestFilesystem?.beforeBytes, String(EXT4_BEFORE));
    assert.strictEqual(status.guestFilesystem?.afterBytes, String(EXT4_AFTER));
    assert.strictEqual(status.guestFilesystem?.mountPoint, '/data');
    // A long output is cut, so that the object stays small.
    const output = status.guestFilesystem?.commands?.[0]?.output ?? '';
    assert.isBelow(output.length, 2100);
    assert.isTrue(output.endsWith('…'));
  });

  it('ignores the growth input while the guest has not seen the disk, and on a filesystem-only reading', () => {
    const growing = { optIn: optedIn, outcome: undefined } as const;
    const waiting = deriveStage({
      ...seen(growing),
      probe: { hypervisorBytes: 20n * GI, guestBytes: 10n * GI, guestDevice: 'vdb' },
    });
    assert.strictEqual(waiting.phase, Phase.GuestVerifying);
    assert.isUndefined(waiting.guestFilesystem);
    // guest-exec refused: the agent cannot run the growth either.
    const filesystemOnly = deriveStage({
      ...seen(growing),
      probe: {
        hypervisorBytes: 20n * GI,
        guestBytes: 19n * GI,
        guestEvidence: 'Filesystem',
        guestDevice: '/data',
      },
    });
    assert.strictEqual(filesystemOnly.phase, Phase.Completed);
    assert.strictEqual(filesystemOnly.reason, StageReason.GuestSeesNewSize);
  });
});

describe('nextStatus through the guest filesystem growth', () => {
  it('GuestVerifying -> GuestFilesystemGrowing -> Completed: each phase stamped, the growth recorded, then kept as final', () => {
    const verifying = deriveStage({
      ...seen(undefined),
      probe: { hypervisorBytes: 20n * GI, guestBytes: 10n * GI, guestDevice: 'vdb' },
    });
    const first = nextStatus(undefined, verifying, NOW);
    const growing = deriveStage({
      ...seen({ optIn: optedIn, outcome: undefined }),
      expansion: expansion('20Gi', first),
      now: NOW + MINUTE,
    });
    const second = nextStatus(first, growing, NOW + MINUTE);
    assert.strictEqual(second.phase, Phase.GuestFilesystemGrowing);
    assert.strictEqual(second.progress?.phase, Phase.GuestFilesystemGrowing);
    assert.isUndefined(second.guestFilesystem);
    const done = deriveStage({
      ...seen({
        optIn: optedIn,
        outcome: { kind: 'grown', mountPoint: '/data', beforeBytes: 1n, afterBytes: 2n, ran: [] },
      }),
      expansion: expansion('20Gi', second),
      now: NOW + 2 * MINUTE,
    });
    const third = nextStatus(second, done, NOW + 2 * MINUTE);
    assert.strictEqual(third.phase, Phase.Completed);
    assert.strictEqual(third.reason, StageReason.GuestFilesystemGrown);
    assert.deepStrictEqual(Object.keys(third.phaseTimestamps ?? {}), [
      Phase.GuestVerifying,
      Phase.GuestFilesystemGrowing,
      Phase.Completed,
    ]);
    assert.strictEqual(third.guestFilesystem?.result, 'Grown');
    // Completed is final: derived again, nothing changes and the growth record stays.
    const again = deriveStage({
      ...seen({ optIn: optedIn, outcome: undefined }),
      expansion: expansion('20Gi', third),
      now: NOW + 3 * MINUTE,
    });
    assert.deepStrictEqual(nextStatus(third, again, NOW + 3 * MINUTE), third);
  });

  it('never turns GuestFilesystemGrowing into NoProgress (the tracker itself runs the growth)', () => {
    const growing = deriveStage(seen({ optIn: optedIn, outcome: undefined }));
    const status = nextStatus(undefined, growing, NOW);
    const later = deriveStage({
      ...seen({ optIn: optedIn, outcome: undefined }),
      expansion: expansion('20Gi', status),
      now: NOW + 60 * MINUTE,
    });
    assert.strictEqual(later.phase, Phase.GuestFilesystemGrowing);
    assert.isUndefined(later.recheckAfterMs);
  });
});
