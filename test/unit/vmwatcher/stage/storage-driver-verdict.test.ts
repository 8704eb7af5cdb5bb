import { describe, it } from 'mocha';
import { assert } from 'chai';
import { Phase, StageReason } from '../../../../src/vmwatcher/index.js';
import { deriveStage } from '../../../../src/vmwatcher/derive-stage.js';
import { WaitingFor } from '../../../../src/vmwatcher/expansion-phase.js';
import type { Verdict } from '../../../../src/vmwatcher/stage/stage-verdict.js';
import {
  storageDriverVerdict,
  type StorageDriverInput,
} from '../../../../src/vmwatcher/stage/storage-driver-verdict.js';
import type { ClaimEvent, LonghornVolume } from '../../../../src/model/index.js';
import { expansion, input, MINUTE, NOW } from '../../../support/vmwatcher/expansion-fixtures.js';

const LONGHORN = 'driver.longhorn.io';
const CREATED = NOW - 5 * MINUTE;

const controller: Verdict = {
  phase: Phase.ControllerResizing,
  waitingFor: WaitingFor.ExternalResizer,
  reason: StageReason.ControllerResizeInProgress,
  message: 'external-resizer is growing the volume.',
  progressPhase: Phase.ControllerResizing,
};

/** A Warning Event as external-resizer writes it on the PVC. */
function warning(message: string, at = NOW - MINUTE): ClaimEvent {
  return {
    involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'vm1-disk-0' },
    type: 'Warning',
    reason: 'VolumeResizeFailed',
    message,
    lastTimestamp: new Date(at).toISOString(),
  };
}

const OFFLINE_ONLY = warning(
  'Unable to expand default/vm1-disk-0 because CSI driver nfs.csi.k8s.io only supports offline expansion and volume is currently in-use',
);
const DEADLINE = warning(
  'resize volume "pvc-1" by resizer "driver.longhorn.io" failed: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
);

function longhorn(status: LonghornVolume['status']): LonghornVolume {
  return { metadata: { name: 'pvc-1', namespace: 'longhorn-system' }, status };
}

function driverInput(overrides: Partial<StorageDriverInput>): StorageDriverInput {
  return {
    claim: 'default/vm1-disk-0',
    toText: '20Gi',
    driver: LONGHORN,
    longhornVolume: undefined,
    events: [],
    since: CREATED,
    ...overrides,
  };
}

describe('storageDriverVerdict', () => {
  const rows: Array<{
    name: string;
    input: Partial<StorageDriverInput>;
    verdict?: Verdict;
    reason: string;
    phase: string;
    says?: string[];
  }> = [
    {
      name: 'nothing said: the verdict given',
      input: {},
      reason: controller.reason,
      phase: Phase.ControllerResizing,
    },
    {
      name: 'the offline-only Event: Stuck, stop the VM',
      input: { driver: 'nfs.csi.k8s.io', events: [OFFLINE_ONLY] },
      reason: StageReason.OfflineExpansionOnly,
      phase: Phase.Stuck,
      says: ['nfs.csi.k8s.io', 'Stop the VM', 'offline'],
    },
    {
      name: 'an offline-only Event older than the expansion says nothing',
      input: { events: [warning(OFFLINE_ONLY.message!, CREATED - MINUTE)] },
      reason: controller.reason,
      phase: Phase.ControllerResizing,
    },
    {
      name: "Longhorn's lastExpansionError: Stuck with its error",
      input: {
        longhornVolume: longhorn({
          expansionRequired: true,
          lastExpansionError: 'insufficient storage on replica disks',
          lastExpansionFailedAt: '2026-11-20T08:58:00Z',
        }),
      },
      reason: StageReason.LonghornExpansionFailed,
      phase: Phase.Stuck,
      says: ['insufficient storage on replica disks', '2026-11-20T08:58:00Z', 'Longhorn'],
    },
    {
      name: "Longhorn's expansionRequired: still expanding",
      input: { longhornVolume: longhorn({ expansionRequired: true, lastExpansionError: '' }) },
      reason: StageReason.LonghornExpanding,
      phase: Phase.ControllerResizing,
      says: ['still expanding'],
    },
    {
      name: "Longhorn's 90 s DeadlineExceeded retry (an Event only): still expanding",
      input: { events: [DEADLINE] },
      reason: StageReason.LonghornExpanding,
      phase: Phase.ControllerResizing,
      says: ['retries'],
    },
    {
      name: 'DeadlineExceeded from another driver says nothing of Longhorn',
      input: { driver: 'nfs.csi.k8s.io', events: [DEADLINE] },
      reason: controller.reason,
      phase: Phase.ControllerResizing,
    },
    {
      name: 'a Normal Event with the text is not a failure',
      input: { events: [{ ...OFFLINE_ONLY, type: 'Normal' }] },
      reason: controller.reason,
      phase: Phase.ControllerResizing,
    },
    {
      name: 'past the controller part nothing changes',
      input: { longhornVolume: longhorn({ lastExpansionError: 'boom' }), events: [OFFLINE_ONLY] },
      verdict: {
        ...controller,
        phase: Phase.NodeResizePending,
        reason: StageReason.NodeResizePending,
      },
      reason: StageReason.NodeResizePending,
      phase: Phase.NodeResizePending,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const verdict = storageDriverVerdict(driverInput(row.input), row.verdict ?? controller);
      assert.strictEqual(verdict.reason, row.reason);
      assert.strictEqual(verdict.phase, row.phase);
      for (const text of row.says ?? []) assert.include(verdict.message, text);
    });
  }
});

describe('deriveStage with the storage driver', () => {
  const waited = (extra: Partial<Parameters<typeof input>[0]>) =>
    deriveStage(
      input({
        expansion: {
          ...expansion('20Gi', {
            phase: Phase.ControllerResizing,
            progress: {
              phase: Phase.ControllerResizing,
              since: new Date(NOW - 11 * MINUTE).toISOString(),
            },
          }),
        },
        pv: {
          spec: { capacity: { storage: '10Gi' }, csi: { driver: LONGHORN, volumeHandle: 'pvc-1' } },
        },
        ...extra,
      }),
    );

  it('Longhorn still expanding past --stuck-after is not NoProgress', () => {
    const stage = waited({ claimEvents: [warning(DEADLINE.message!, NOW - MINUTE)] });
    assert.strictEqual(stage.phase, Phase.ControllerResizing);
    assert.strictEqual(stage.reason, StageReason.LonghornExpanding);
    assert.isUndefined(stage.recheckAfterMs);
  });

  it('without a word from the driver the same wait is NoProgress', () => {
    assert.strictEqual(waited({}).reason, StageReason.NoProgress);
  });

  it("Longhorn's error is the reason, not NoProgress", () => {
    const stage = waited({ longhornVolume: longhorn({ lastExpansionError: 'no space' }) });
    assert.strictEqual(stage.phase, Phase.Stuck);
    assert.strictEqual(stage.reason, StageReason.LonghornExpansionFailed);
    assert.strictEqual(stage.waitingFor, WaitingFor.User);
  });
});
