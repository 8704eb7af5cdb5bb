import { describe, it } from 'mocha';
import { assert } from 'chai';
import { formatStatusTable, statusRow } from '../../../src/vmwatcher/index.js';
import { formatAge } from '../../../src/vmwatcher/format-status.js';
import { expansion, NOW } from '../../support/vmwatcher/expansion-fixtures.js';

describe('voe status output', () => {
  it('prints ages as kubectl does', () => {
    const table: Array<[number, string]> = [
      [0, '0s'],
      [59_000, '59s'],
      [125_000, '2m5s'],
      [600_000, '10m'],
      [3_600_000, '1h'],
      [3_660_000, '1h1m'],
      [36_000_000, '10h'],
      [90_000_000, '25h'],
      [3 * 86_400_000 + 3_600_000 * 4, '3d4h'],
      [20 * 86_400_000, '20d'],
    ];
    for (const [ms, text] of table) assert.strictEqual(formatAge(ms), text, String(ms));
  });

  it('prints the columns of the CRD, padded, NAMESPACE first with -A', () => {
    const stuck = expansion('20Gi', {
      phase: 'Stuck',
      waitingFor: 'user',
      reason: 'VMStopped',
      message: 'The VM vm1 is not running,\nso KubeVirt cannot grow its disk online.',
    });
    stuck.metadata = {
      ...stuck.metadata,
      creationTimestamp: new Date(NOW - 300_000).toISOString(),
    };
    const rows = [statusRow(stuck)];
    assert.deepStrictEqual(
      formatStatusTable(rows, { allNamespaces: false, now: NOW }).split('\n'),
      [
        'PVC                VM    FROM   TO     PHASE   WAITING FOR   AGE   MESSAGE',
        'vm1-disk-0-kq8zt   vm1   10Gi   20Gi   Stuck   user          5m    The VM vm1 is not running, so KubeVirt cannot grow its disk online.',
        '',
      ],
    );
    assert.match(
      formatStatusTable(rows, { allNamespaces: true, now: NOW }),
      /^NAMESPACE {3}PVC {16}VM .*\ndefault {5}vm1-disk-0-kq8zt /,
    );
    assert.deepInclude(rows[0], {
      namespace: 'default',
      reason: 'VMStopped',
      pvc: 'vm1-disk-0-kq8zt',
    });
  });

  it("gives --json the guest's filesystem bytes before and after a growth", () => {
    const grown = expansion('20Gi', {
      phase: 'Completed',
      reason: 'GuestFilesystemGrown',
      message: 'voe grew its filesystem /data on vdb from 10736349184 to 21473767424 bytes.',
      guestFilesystem: {
        result: 'Grown',
        mountPoint: '/data',
        beforeBytes: '10736349184',
        afterBytes: '21473767424',
      },
    });
    const row = statusRow(grown);
    assert.strictEqual(row.guestFilesystem?.beforeBytes, '10736349184');
    assert.strictEqual(row.guestFilesystem?.afterBytes, '21473767424');
    assert.notProperty(statusRow(expansion('20Gi', { phase: 'Completed' })), 'guestFilesystem');
  });
});
