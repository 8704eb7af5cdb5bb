import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  guestProbeNamespaceListed,
  parseGuestProbeNamespaces,
} from '../../../src/vmwatcher/guest-probe-namespaces.js';
import { Phase, StageReason } from '../../../src/vmwatcher/index.js';
import { deriveStage } from '../../../src/vmwatcher/derive-stage.js';
import {
  claim,
  expansion,
  input,
  instance,
  launcher,
  MINUTE,
  NOW,
  volume,
} from '../../support/vmwatcher/expansion-fixtures.js';

describe('parseGuestProbeNamespaces', () => {
  const rows: Array<[string, string[]]> = [
    ['vms', ['vms']],
    ['ns1,ns2', ['ns1', 'ns2']],
    [' ns1 , ns2 ,', ['ns1', 'ns2']],
    ['ns1,ns1', ['ns1']],
    ['', []],
  ];
  for (const [text, namespaces] of rows)
    it(JSON.stringify(text), () =>
      assert.deepStrictEqual(parseGuestProbeNamespaces(text), namespaces),
    );
});

describe('guestProbeNamespaceListed', () => {
  const rows: Array<[string | undefined, string[] | undefined, boolean]> = [
    ['vms', undefined, true],
    ['vms', ['vms', 'other'], true],
    ['default', ['vms'], false],
    ['vms', [], false],
    [undefined, ['vms'], false],
  ];
  for (const [namespace, namespaces, listed] of rows)
    it(`${namespace} in ${JSON.stringify(namespaces)}: ${listed}`, () =>
      assert.strictEqual(guestProbeNamespaceListed(namespace, namespaces), listed));
});

describe('deriveStage of a VM outside --guest-probe-namespaces', () => {
  it('stays GuestUnverifiable past --stuck-after, never NoProgress', () => {
    const running = instance({ capacity: '20Gi' });
    const stage = deriveStage(
      input({
        pvc: claim({ capacity: '20Gi' }),
        pv: volume('20Gi'),
        vmi: running,
        pods: [launcher(running)],
        guestProbeNamespaces: ['vms'],
        expansion: expansion('20Gi', {
          phase: Phase.Stuck,
          reason: StageReason.GuestUnverifiable,
          progress: {
            phase: Phase.HypervisorResizing,
            since: new Date(NOW - 60 * MINUTE).toISOString(),
          },
        }),
      }),
    );
    assert.strictEqual(stage.phase, Phase.Stuck);
    assert.strictEqual(stage.reason, StageReason.GuestUnverifiable);
    assert.include(stage.message, 'vms');
  });
});
