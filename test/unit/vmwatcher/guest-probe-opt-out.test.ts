import { describe, it } from 'mocha';
import { assert } from 'chai';
import { guestProbeOptedOut } from '../../../src/vmwatcher/guest-probe-opt-out.js';
import { GUEST_PROBE_ANNOTATION } from '../../../src/model/index.js';
import { deriveStage } from '../../../src/vmwatcher/derive-stage.js';
import { leanVm } from '../../../src/model/lean-objects.js';
import { StageReason } from '../../../src/vmwatcher/index.js';
import { vm } from '../../support/webhook/admission-objects.js';
import {
  claim,
  input,
  instance,
  launcher,
  volume,
} from '../../support/vmwatcher/expansion-fixtures.js';

function annotated(value: string | undefined) {
  const object = vm('vm1');
  if (value !== undefined)
    object.metadata = {
      ...object.metadata,
      annotations: { ...(object.metadata?.annotations ?? {}), [GUEST_PROBE_ANNOTATION]: value },
    };
  return object;
}

describe('the guest probe opt-out of a VM', () => {
  const table: Array<[string, string | undefined, boolean]> = [
    ['annotation "off": opted out', 'off', true],
    ['annotation "on": probed', 'on', false],
    ['no annotation: probed', undefined, false],
  ];
  for (const [name, value, optedOut] of table)
    it(name, () => {
      assert.strictEqual(guestProbeOptedOut(annotated(value)), optedOut);
      // The tracker's caches hold lean VMs: the annotation survives the projection.
      assert.strictEqual(guestProbeOptedOut(leanVm(annotated(value))), optedOut);
    });

  it('says the VM opted out, not that no probe is configured', () => {
    const running = instance({ capacity: '20Gi' });
    const stage = deriveStage(
      input({
        pvc: claim({ capacity: '20Gi' }),
        pv: volume('20Gi'),
        vm: annotated('off'),
        vmi: running,
        pods: [launcher(running)],
      }),
    );
    assert.strictEqual(stage.reason, StageReason.NoGuestProbe);
    assert.include(
      stage.message,
      `opts out of the guest probe (annotation ${GUEST_PROBE_ANNOTATION}`,
    );
  });
});
