import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseDuration, Phase, StageReason } from '../../../src/vmwatcher/index.js';
import type { Stage } from '../../../src/vmwatcher/derive-stage.js';
import { WaitingFor } from '../../../src/vmwatcher/expansion-phase.js';
import { expectedGuestBytes, parseOverhead } from '../../../src/vmwatcher/expected-guest-bytes.js';
import { formatDuration } from '../../../src/vmwatcher/format-duration.js';
import { nextStatus } from '../../../src/vmwatcher/next-status.js';
import { readResizeState } from '../../../src/vmwatcher/read-resize-state.js';
import { claimHold, hotplugPodsOf } from '../../../src/vmwatcher/volume-pods.js';
import {
  CLAIM,
  claim,
  hotplugPod,
  instance,
  launcher,
  NOW,
  resizeState,
} from '../../support/vmwatcher/expansion-fixtures.js';

const GI = 1024n ** 3n;

describe('readResizeState', () => {
  const table: Array<[string, string | undefined]> = [
    ['ControllerResizeInProgress', 'ControllerResizeInProgress'],
    ['ControllerResizeInfeasible', 'ControllerResizeInfeasible'],
    ['ControllerResizeFailed', 'ControllerResizeInfeasible'],
    ['NodeResizePending', 'NodeResizePending'],
    ['NodeResizeInProgress', 'NodeResizeInProgress'],
    ['NodeResizeInfeasible', 'NodeResizeInfeasible'],
    ['NodeResizeFailed', 'NodeResizeInfeasible'],
    ['SomethingNew', undefined],
  ];
  for (const [written, status] of table) {
    it(`reads ${written} as ${String(status)}`, () => {
      const state = readResizeState(resizeState(claim(), { status: written }));
      assert.strictEqual(state.status, status);
      assert.strictEqual(state.written, written);
    });
  }

  it('reads the four conditions when True only', () => {
    const object = resizeState(claim(), {
      conditions: [
        { type: 'Resizing' },
        { type: 'FileSystemResizePending' },
        { type: 'ControllerResizeError', message: 'c' },
        { type: 'NodeResizeError', message: 'n' },
      ],
    });
    const state = readResizeState(object);
    assert.strictEqual(state.controllerResizeError?.message, 'c');
    assert.strictEqual(state.nodeResizeError?.message, 'n');
    assert.isDefined(state.resizing);
    assert.isDefined(state.fileSystemResizePending);
    object.status!.conditions![0]!.status = 'False';
    assert.isUndefined(readResizeState(object).resizing);
  });

  it('reads nothing from a PVC without resize state', () => {
    const state = readResizeState(claim());
    assert.isUndefined(state.status);
    assert.isUndefined(state.resizing);
  });
});

describe('hotplug pods', () => {
  const running = instance();
  const pod = launcher(running);
  const hp = (name: string, uid: string, hold: 'mount' | 'device' | 'listed') =>
    hotplugPod(pod, { name, uid, volumes: [{ name: 'data', claimName: CLAIM, hold }] });

  it('are the current hotplug-disk pods owned by the launcher', () => {
    const other = hotplugPod(launcher(running, 'virt-launcher-vm1-other', 'uid-other'), {
      name: 'hp-volume-other',
      uid: 'uid-hp-other',
      volumes: [],
    });
    const leaving = hp('hp-volume-old', 'uid-hp-old', 'mount');
    leaving.metadata = { ...leaving.metadata, deletionTimestamp: '2026-11-20T08:00:00Z' };
    const current = hp('hp-volume-new', 'uid-hp-new', 'listed');
    assert.deepStrictEqual(
      hotplugPodsOf(pod, [pod, other, leaving, current]).map((p) => p.metadata?.name),
      ['hp-volume-new'],
    );
  });

  it('hold a claim mounted, as a device, or only listed', () => {
    assert.deepStrictEqual(claimHold(hp('a', 'u1', 'mount'), CLAIM), {
      listed: true,
      mounted: true,
      device: false,
    });
    assert.deepStrictEqual(claimHold(hp('b', 'u2', 'device'), CLAIM), {
      listed: true,
      mounted: false,
      device: true,
    });
    assert.deepStrictEqual(claimHold(hp('c', 'u3', 'listed'), CLAIM), {
      listed: true,
      mounted: false,
      device: false,
    });
    assert.deepStrictEqual(claimHold(hp('d', 'u4', 'mount'), 'other'), {
      listed: false,
      mounted: false,
      device: false,
    });
  });
});

describe('expectedGuestBytes', () => {
  it('is min(request, capacity) for Block', () => {
    assert.strictEqual(
      expectedGuestBytes({
        volumeMode: 'Block',
        request: 20n * GI,
        capacity: 21n * GI,
        filesystemOverhead: '0.055',
      }),
      20n * GI,
    );
  });

  it('takes the overhead off a Filesystem volume and rounds down to MiB', () => {
    assert.strictEqual(
      expectedGuestBytes({
        volumeMode: 'Filesystem',
        request: 10n * GI,
        capacity: 10n * GI,
        filesystemOverhead: '0',
      }),
      10n * GI,
    );
    assert.strictEqual(
      expectedGuestBytes({
        volumeMode: 'Filesystem',
        request: 1000n * 1048576n + 5n,
        capacity: 2n * GI,
        filesystemOverhead: '0.5',
      }),
      500n * 1048576n,
    );
  });

  it('uses the default 0.055 for a missing or invalid overhead', () => {
    const expected = ((10n * GI * 945n) / 1000n / 1048576n) * 1048576n;
    for (const filesystemOverhead of [undefined, '1.5', 'abc']) {
      assert.strictEqual(
        expectedGuestBytes({
          volumeMode: 'Filesystem',
          request: 10n * GI,
          capacity: 10n * GI,
          filesystemOverhead,
        }),
        expected,
      );
    }
  });

  it('parses overhead fractions exactly', () => {
    assert.deepStrictEqual(parseOverhead('0.055'), { num: 55n, den: 1000n });
    assert.deepStrictEqual(parseOverhead('0'), { num: 0n, den: 1n });
    assert.isUndefined(parseOverhead('1'));
    assert.isUndefined(parseOverhead('-0.1'));
  });
});

describe('nextStatus', () => {
  const stage = (over: Partial<Stage> = {}): Stage => ({
    phase: Phase.NodeResizePending,
    waitingFor: WaitingFor.Kubelet,
    reason: StageReason.NodeResizePending,
    message: 'kubelet grows it next.',
    sizes: { request: '20Gi', pv: '20Gi', pvcCapacity: '10Gi', vmiCapacity: undefined },
    pods: { launcher: 'virt-launcher-vm1-x7k2p' },
    progress: { phase: Phase.NodeResizePending, since: NOW },
    recheckAfterMs: 600_000,
    problems: [],
    ...over,
  });

  it('stamps a new phase, its transition and progress, and drops unknown sizes', () => {
    const status = nextStatus(
      {
        phase: Phase.ControllerResizing,
        phaseTimestamps: { ControllerResizing: '2026-11-20T08:50:00Z' },
      },
      stage(),
      NOW,
    );
    assert.deepStrictEqual(status, {
      phase: Phase.NodeResizePending,
      waitingFor: WaitingFor.Kubelet,
      reason: StageReason.NodeResizePending,
      message: 'kubelet grows it next.',
      phaseTimestamps: {
        ControllerResizing: '2026-11-20T08:50:00Z',
        NodeResizePending: '2026-11-20T09:00:00Z',
      },
      lastTransitionTime: '2026-11-20T09:00:00Z',
      progress: { phase: Phase.NodeResizePending, since: '2026-11-20T09:00:00Z' },
      sizes: { request: '20Gi', pv: '20Gi', pvcCapacity: '10Gi' },
      pods: { launcher: 'virt-launcher-vm1-x7k2p' },
    });
  });

  it('writes the same status again for the same stage (nothing to patch)', () => {
    const first = nextStatus(undefined, stage(), NOW);
    const again = nextStatus(
      first,
      stage({ progress: { phase: Phase.NodeResizePending, since: NOW } }),
      NOW + 60_000,
    );
    assert.deepStrictEqual(again, first);
  });

  it('keeps the first time of a phase entered again', () => {
    const first = nextStatus(undefined, stage(), NOW);
    const stuck = nextStatus(
      first,
      stage({ phase: Phase.Stuck, reason: StageReason.NoProgress }),
      NOW + 1000_000,
    );
    const back = nextStatus(stuck, stage(), NOW + 2000_000);
    assert.strictEqual(back.phaseTimestamps?.NodeResizePending, '2026-11-20T09:00:00Z');
    assert.strictEqual(back.lastTransitionTime, '2026-11-20T09:33:20Z');
  });
});

describe('durations', () => {
  it('formats as Go rounds them', () => {
    assert.strictEqual(formatDuration(45_000), '45s');
    assert.strictEqual(formatDuration(600_000), '10m');
    assert.strictEqual(formatDuration(3_930_000), '1h5m30s');
    assert.strictEqual(formatDuration(3_600_000), '1h0m');
  });

  it('parses Go durations up to hours', () => {
    assert.strictEqual(parseDuration('10m'), 600_000);
    assert.strictEqual(parseDuration('1h30m'), 5_400_000);
    assert.strictEqual(parseDuration('500ms'), 500);
    assert.strictEqual(parseDuration('1.5s'), 1500);
    for (const bad of ['', '10', 'm', '0s', '10d', '-1m'])
      assert.isUndefined(parseDuration(bad), bad);
  });
});
