import { describe, it } from 'mocha';
import { assert } from 'chai';
import { pageOfSnapshots } from '../../../src/guest-csi-bridge/controller/list-snapshots.js';
import {
  backupIncompatibility,
  backupMessageOf,
  harvesterFailureOf,
  parseBackupSnapshotId,
  planRemoteBackup,
  planRemoteRestore,
} from '../../../src/guest-csi-bridge/controller/plan-remote-backup.js';
import {
  backupRestoreBytes,
  restoreIncompatibility,
} from '../../../src/guest-csi-bridge/controller/restore-from-backup.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type {
  HostRemoteBackup,
  HostVolumeSnapshot,
} from '../../../src/guest-csi-bridge/host/host-objects.js';

const MiB = 1024n * 1024n;
const SOURCE_LABEL = 'harvesterhci.io/backupSourceVolume';

const backup = (
  name: string,
  source = 'pvc-1',
  status: HostRemoteBackup['status'] = {},
  extra: Partial<NonNullable<HostRemoteBackup['metadata']>> = {},
): HostRemoteBackup => ({
  metadata: {
    name,
    namespace: 'guests',
    labels: { [SOURCE_LABEL]: source },
    creationTimestamp: '2026-12-07T09:00:00Z',
    ...extra,
  },
  spec: { type: 'lh', source },
  status,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return isCsiError(error) ? error.code : String(error);
  }
}

describe('backup snapshot plans', () => {
  it("planRemoteBackup: a VolumeRemoteBackup of type lh of the PVC, labelled as Harvester's driver labels it", () => {
    assert.deepStrictEqual(planRemoteBackup('snap-1', 'snap-1', 'pvc-1'), {
      metadata: { name: 'snap-1', labels: { [SOURCE_LABEL]: 'pvc-1' } },
      spec: { type: 'lh', source: 'pvc-1' },
    });
    assert.deepStrictEqual(planRemoteBackup('snap-abc', 'Snap ABC', 'p').metadata?.annotations, {
      'voe.harvesterhci.io/csi-snapshot-name': 'Snap ABC',
    });
  });

  it('planRemoteRestore: named after the volume, from <namespace>/<name>', () => {
    assert.deepStrictEqual(planRemoteRestore('pvc-2', { namespace: 'guests', name: 'snap-1' }), {
      metadata: { name: 'pvc-2' },
      spec: { type: 'lh', from: 'guests/snap-1' },
    });
  });

  describe('parseBackupSnapshotId', () => {
    const cases: Array<[string, { namespace: string; name: string } | undefined]> = [
      ['backup:guests/snap-1', { namespace: 'guests', name: 'snap-1' }],
      ['snap-1', undefined],
      ['backup:snap-1', undefined],
      ['backup:/snap-1', undefined],
      ['backup:guests/', undefined],
      ['backup:Guests/snap-1', undefined],
      ['backup:guests/a/b', undefined],
    ];
    for (const [id, expected] of cases)
      it(`"${id}"`, () => assert.deepStrictEqual(parseBackupSnapshotId(id), expected));
  });

  it("backupMessageOf: Harvester's driver's id, source label, recorded size and success", () => {
    const ready = backup('snap-1', 'pvc-1', {
      success: true,
      sourceSpec: { resources: { requests: { storage: '64Mi' } } },
    });
    assert.deepStrictEqual(backupMessageOf(ready), {
      snapshot_id: 'backup:guests/snap-1',
      source_volume_id: 'pvc-1',
      size_bytes: String(64n * MiB),
      creation_time: { seconds: String(Date.parse('2026-12-07T09:00:00Z') / 1000), nanos: 0 },
      ready_to_use: true,
    });
    const pending = backupMessageOf(backup('snap-2'));
    assert.strictEqual(pending.size_bytes, '0');
    assert.isFalse(pending.ready_to_use);
  });

  describe('harvesterFailureOf', () => {
    const ready = (status: string, message: string) => ({
      conditions: [{ type: 'Ready', status, message, reason: '' }],
    });
    const cases: Array<[string, HostRemoteBackup['status'], string | undefined]> = [
      ['no status', {}, undefined],
      ['in progress (SetProcessing)', ready('False', 'Operation in progress'), undefined],
      ['complete', { ...ready('True', 'Operation complete'), success: true }, undefined],
      [
        'an error (SetError)',
        ready('False', 'the source PVC is not bound'),
        'the source PVC is not bound',
      ],
    ];
    for (const [what, status, expected] of cases)
      it(what, () => assert.strictEqual(harvesterFailureOf(backup('b', 'p', status)), expected));
  });

  describe('backupIncompatibility', () => {
    const cases: Array<[string, HostRemoteBackup, string, string, RegExp | undefined]> = [
      ['a retry', backup('snap-1'), 'snap-1', 'pvc-1', undefined],
      ['another source', backup('snap-1', 'pvc-2'), 'snap-1', 'pvc-1', /of volume pvc-2/],
      [
        'no guest label',
        { ...backup('snap-1'), metadata: { name: 'snap-1' } },
        'snap-1',
        'pvc-1',
        /not a guest volume's backup/,
      ],
      ['made for another name', backup('snap-1'), 'Other Name', 'pvc-1', /not made for/],
    ];
    for (const [what, existing, csiName, source, expected] of cases)
      it(what, () => {
        const why = backupIncompatibility(existing, csiName, source);
        if (expected) assert.match(why ?? '', expected);
        else assert.isUndefined(why);
      });
  });

  describe('backupRestoreBytes', () => {
    const sized = backup('snap-1', 'pvc-1', {
      success: true,
      sourceSpec: { resources: { requests: { storage: '64Mi' } } },
    });
    const cases: Array<[string, bigint, bigint, string]> = [
      ['no size asked: the backed-up size', 0n, 0n, String(64n * MiB)],
      ['the backed-up size', 64n * MiB, 0n, String(64n * MiB)],
      ['less: the backed-up size', 32n * MiB, 0n, String(64n * MiB)],
      ['more: Harvester cannot restore it larger', 128n * MiB, 0n, 'CSI_CAPACITY_OUT_OF_RANGE'],
      ['a limit below it', 0n, 32n * MiB, 'CSI_CAPACITY_OUT_OF_RANGE'],
    ];
    for (const [what, requiredBytes, limitBytes, expected] of cases)
      it(what, () => {
        let got: string | undefined;
        const code = codeOf(() => {
          got = String(backupRestoreBytes(sized, { requiredBytes, limitBytes }));
        });
        assert.strictEqual(code ?? got, expected);
      });
  });

  it('restoreIncompatibility: the same backup is a retry, another is not', () => {
    const restore = planRemoteRestore('pvc-2', { namespace: 'guests', name: 'snap-1' });
    assert.isUndefined(restoreIncompatibility(restore, { namespace: 'guests', name: 'snap-1' }));
    assert.match(
      restoreIncompatibility(restore, { namespace: 'guests', name: 'snap-2' }) ?? '',
      /restores guests\/snap-1, not guests\/snap-2/,
    );
  });

  it('pageOfSnapshots: backups beside VolumeSnapshots, by snapshot id; unlabelled or deleted ones left out', () => {
    const local: HostVolumeSnapshot = {
      metadata: {
        name: 'snap-local',
        labels: {
          'harvesterhci.io/snapHostSC': 'longhorn',
          'harvesterhci.io/snapHostVolumeMode': 'Block',
        },
      },
      spec: { source: { persistentVolumeClaimName: 'pvc-1' } },
    };
    const all = [
      local,
      backup('snap-b', 'pvc-2'),
      backup('snap-a'),
      backup('snap-gone', 'pvc-1', {}, { deletionTimestamp: 'x' }),
      { ...backup('host-own'), metadata: { name: 'host-own', namespace: 'guests' } },
    ];
    const request = { max_entries: 0, starting_token: '', snapshot_id: '', source_volume_id: '' };
    const ids = (r: Partial<typeof request>) =>
      pageOfSnapshots(all, { ...request, ...r }).snapshots.map((s) => s.metadata?.name);
    assert.deepStrictEqual(ids({}), ['snap-a', 'snap-b', 'snap-local']);
    assert.deepStrictEqual(ids({ source_volume_id: 'pvc-1' }), ['snap-a', 'snap-local']);
    assert.deepStrictEqual(ids({ snapshot_id: 'backup:guests/snap-b' }), ['snap-b']);
    assert.deepStrictEqual(ids({ snapshot_id: 'snap-b' }), []);
  });
});
