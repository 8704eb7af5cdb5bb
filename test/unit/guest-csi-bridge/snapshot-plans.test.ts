import { describe, it } from 'mocha';
import { assert } from 'chai';
import { snapshotIncompatibility } from '../../../src/guest-csi-bridge/controller/create-snapshot.js';
import { chooseHostSnapshotClass } from '../../../src/guest-csi-bridge/controller/host-snapshot-class.js';
import { pageOfSnapshots } from '../../../src/guest-csi-bridge/controller/list-snapshots.js';
import {
  planHostSnapshot,
  snapshotMessageOf,
} from '../../../src/guest-csi-bridge/controller/plan-host-snapshot.js';
import {
  restoreInput,
  sourceIncompatibility,
} from '../../../src/guest-csi-bridge/controller/plan-restore.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type {
  HostPvc,
  HostVolumeSnapshot,
} from '../../../src/guest-csi-bridge/host/host-objects.js';

const MiB = 1024n * 1024n;
const LABELS = {
  'harvesterhci.io/snapHostSC': 'longhorn',
  'harvesterhci.io/snapHostVolumeMode': 'Block',
};

const pvc = (provisioner?: string): HostPvc => ({
  metadata: {
    name: 'pvc-1',
    ...(provisioner
      ? { annotations: { 'volume.kubernetes.io/storage-provisioner': provisioner } }
      : {}),
  },
  spec: { storageClassName: 'longhorn', volumeMode: 'Block' },
});

const guestSnapshot = (
  name: string,
  source = 'pvc-1',
  extra: Partial<HostVolumeSnapshot> = {},
): HostVolumeSnapshot => ({
  metadata: { name, labels: { ...LABELS } },
  spec: { source: { persistentVolumeClaimName: source }, volumeSnapshotClassName: 'c' },
  ...extra,
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return isCsiError(error) ? error.code : String(error);
  }
}

describe('snapshot plans', () => {
  it("planHostSnapshot: the PVC's class and mode as Harvester's labels, the CSI name kept when derived", () => {
    const planned = planHostSnapshot('snap-1', 'snap-1', pvc(), 'longhorn-snapshot');
    assert.deepStrictEqual(planned, {
      metadata: { name: 'snap-1', labels: LABELS },
      spec: {
        source: { persistentVolumeClaimName: 'pvc-1' },
        volumeSnapshotClassName: 'longhorn-snapshot',
      },
    });
    const derived = planHostSnapshot('snap-abc', 'Snap ABC', { metadata: { name: 'p' } }, 'c');
    assert.strictEqual(derived.metadata?.labels?.['harvesterhci.io/snapHostVolumeMode'], 'Block');
    assert.deepStrictEqual(derived.metadata?.annotations, {
      'voe.harvesterhci.io/csi-snapshot-name': 'Snap ABC',
    });
  });

  describe('chooseHostSnapshotClass', () => {
    const config = (def: string, value = '') => ({ default: def, value });
    const LONGHORN = '{"driver.longhorn.io":{"volumeSnapshotClassName":"longhorn-snapshot"}}';
    const cases: Array<{
      what: string;
      parameters: Record<string, string>;
      provisioner?: string;
      setting?: { default?: string; value?: string };
      expected: string;
    }> = [
      {
        what: 'the parameter wins',
        parameters: { hostSnapshotClass: 'mine' },
        provisioner: 'driver.longhorn.io',
        setting: config(LONGHORN),
        expected: 'mine',
      },
      {
        what: "the provisioner's entry in default",
        parameters: {},
        provisioner: 'driver.longhorn.io',
        setting: config(LONGHORN),
        expected: 'longhorn-snapshot',
      },
      {
        what: "default first, as Harvester's driver reads it",
        parameters: {},
        provisioner: 'driver.longhorn.io',
        setting: config(LONGHORN, '{"driver.longhorn.io":{"volumeSnapshotClassName":"other"}}'),
        expected: 'longhorn-snapshot',
      },
      {
        what: 'value for a provisioner default lacks',
        parameters: {},
        provisioner: 'nfs.csi.k8s.io',
        setting: config(LONGHORN, '{"nfs.csi.k8s.io":{"volumeSnapshotClassName":"nfs-snap"}}'),
        expected: 'nfs-snap',
      },
      {
        what: 'no entry',
        parameters: {},
        provisioner: 'nfs.csi.k8s.io',
        setting: config(LONGHORN),
        expected: 'CSI_HOST_SNAPSHOT_CLASS_UNKNOWN',
      },
      {
        what: 'no Setting',
        parameters: {},
        provisioner: 'driver.longhorn.io',
        expected: 'CSI_HOST_SNAPSHOT_CLASS_UNKNOWN',
      },
      {
        what: 'a Setting that is not JSON',
        parameters: {},
        provisioner: 'driver.longhorn.io',
        setting: config('{not json'),
        expected: 'CSI_SETTING_INVALID',
      },
    ];
    for (const c of cases)
      it(c.what, () => {
        let got: string | undefined;
        const code = codeOf(() => {
          got = chooseHostSnapshotClass(c.parameters, pvc(c.provisioner), c.setting);
        });
        assert.strictEqual(code ?? got, c.expected);
      });
  });

  describe('pageOfSnapshots', () => {
    const all = [
      guestSnapshot('c', 'pvc-2'),
      guestSnapshot('a'),
      guestSnapshot('b'),
      guestSnapshot('gone', 'pvc-1', {
        metadata: { name: 'gone', labels: LABELS, deletionTimestamp: 'x' },
      }),
      { metadata: { name: 'host-own' }, spec: { source: { persistentVolumeClaimName: 'pvc-1' } } },
    ];
    const cases: Array<{
      what: string;
      request: {
        max_entries?: number;
        starting_token?: string;
        snapshot_id?: string;
        source_volume_id?: string;
      };
      names?: string[];
      next?: string;
      code?: string;
    }> = [
      { what: 'all guest snapshots, in name order', request: {}, names: ['a', 'b', 'c'], next: '' },
      { what: 'by snapshot id', request: { snapshot_id: 'b' }, names: ['b'], next: '' },
      { what: 'an unknown id: none', request: { snapshot_id: 'zz' }, names: [], next: '' },
      {
        what: 'by source volume',
        request: { source_volume_id: 'pvc-1' },
        names: ['a', 'b'],
        next: '',
      },
      { what: 'a first page', request: { max_entries: 2 }, names: ['a', 'b'], next: '2' },
      { what: 'the rest', request: { starting_token: '2' }, names: ['c'], next: '' },
      {
        what: 'a token past the end',
        request: { starting_token: '3' },
        code: 'CSI_INVALID_STARTING_TOKEN',
      },
      {
        what: 'a token not a number',
        request: { starting_token: 'x' },
        code: 'CSI_INVALID_STARTING_TOKEN',
      },
      { what: 'negative max_entries', request: { max_entries: -1 }, code: 'CSI_INVALID_ARGUMENT' },
    ];
    for (const c of cases)
      it(c.what, () => {
        const request = {
          max_entries: 0,
          starting_token: '',
          snapshot_id: '',
          source_volume_id: '',
          ...c.request,
        };
        if (c.code) {
          assert.strictEqual(
            codeOf(() => pageOfSnapshots(all, request)),
            c.code,
          );
          return;
        }
        const page = pageOfSnapshots(all, request);
        assert.deepStrictEqual(
          page.snapshots.map((s) => s.metadata?.name),
          c.names,
        );
        assert.strictEqual(page.nextToken, c.next);
      });
  });

  describe('restoreInput', () => {
    const input = (requiredBytes: bigint, limitBytes = 0n) => ({
      name: 'pvc-r',
      capacity: { requiredBytes, limitBytes },
      parameters: { hostStorageClass: 'other', hostVolumeMode: 'filesystem' },
      defaultHostStorageClass: undefined,
    });
    const snapshot = guestSnapshot('s', 'pvc-1', {
      status: { readyToUse: true, restoreSize: '64Mi' },
    });
    it("takes the snapshot's class and mode, and its size when none is asked for", () => {
      const planned = restoreInput(input(0n), snapshot);
      assert.strictEqual(planned.capacity.requiredBytes, 64n * MiB);
      assert.deepStrictEqual(planned.parameters, {
        hostStorageClass: 'longhorn',
        hostVolumeMode: 'block',
      });
    });
    it('keeps a larger size asked for', () => {
      assert.strictEqual(
        restoreInput(input(128n * MiB), snapshot).capacity.requiredBytes,
        128n * MiB,
      );
    });
    it('refuses a size below the snapshot with OUT_OF_RANGE', () => {
      assert.strictEqual(
        codeOf(() => restoreInput(input(32n * MiB), snapshot)),
        'CSI_CAPACITY_OUT_OF_RANGE',
      );
    });
  });

  it('snapshotIncompatibility and sourceIncompatibility: a retry matches, another source does not', () => {
    assert.isUndefined(snapshotIncompatibility(guestSnapshot('s'), 's', 'pvc-1'));
    assert.match(
      snapshotIncompatibility(guestSnapshot('s'), 's', 'pvc-2') ?? '',
      /pvc-1, not pvc-2/,
    );
    assert.match(
      snapshotIncompatibility({ metadata: { name: 's' } }, 's', 'pvc-1') ?? '',
      /not a guest volume's snapshot/,
    );
    const restored: HostPvc = {
      metadata: { name: 'pvc-r' },
      spec: {
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' },
      },
    };
    assert.isUndefined(sourceIncompatibility(restored, 's'));
    assert.isString(sourceIncompatibility(restored, 't'));
    assert.isString(sourceIncompatibility(restored, undefined));
    assert.isString(sourceIncompatibility({ metadata: { name: 'pvc-b' }, spec: {} }, 's'));
    assert.isUndefined(sourceIncompatibility({ metadata: { name: 'pvc-b' }, spec: {} }, undefined));
  });

  it("snapshotMessageOf: the host status as the CSI Snapshot, the object's creation until the host writes its own", () => {
    const ready = snapshotMessageOf(
      guestSnapshot('s', 'pvc-1', {
        status: { readyToUse: true, restoreSize: '10Gi', creationTime: '2026-12-07T06:00:01Z' },
      }),
    );
    assert.deepStrictEqual(ready, {
      snapshot_id: 's',
      source_volume_id: 'pvc-1',
      size_bytes: String(10n * 1024n * MiB),
      creation_time: { seconds: String(Date.parse('2026-12-07T06:00:01Z') / 1000), nanos: 0 },
      ready_to_use: true,
    });
    const fresh = snapshotMessageOf({
      ...guestSnapshot('s'),
      metadata: { name: 's', labels: LABELS, creationTimestamp: '2026-12-07T06:00:00Z' },
    });
    assert.strictEqual(fresh.size_bytes, '0');
    assert.isFalse(fresh.ready_to_use);
    assert.strictEqual(
      fresh.creation_time?.seconds,
      String(Date.parse('2026-12-07T06:00:00Z') / 1000),
    );
  });
});
