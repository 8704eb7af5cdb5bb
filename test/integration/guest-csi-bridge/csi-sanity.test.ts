/**
 * csi-sanity (kubernetes-csi/csi-test, built from Go modules and cached under ~/.cache/voe)
 * against `voe csi` (the built CLI, a process of its own) on a real host control plane, with the
 * host storage actor playing Harvester's storage and hotplug on loop devices (root). Every spec
 * that applies to the driver's capabilities runs and passes; the skips are the specs of RPCs the
 * driver does not serve (cloning, ListVolumes, GetCapacity, ModifyVolume, group
 * snapshots, read-only publish, an attach limit): docs/csi.md lists them with their reasons.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { useHostControlPlane } from '../../support/guest-csi-bridge/host-control-plane.js';
import {
  startSanityHarness,
  type SanityHarness,
} from '../../support/guest-csi-bridge/csi-sanity-harness.js';

describe('csi-sanity against voe csi', function () {
  this.timeout(900_000);
  const host = useHostControlPlane();
  let harness: SanityHarness | undefined;

  before(async () => {
    harness = await startSanityHarness(host.cp);
  });

  after(async () => {
    await harness?.stop();
  });

  for (const accessType of ['mount', 'block'] as const) {
    it(`passes every applicable spec for the ${accessType} access type`, async () => {
      const run = await harness!.run(accessType);
      const tail = run.output.slice(-6000);
      assert.isDefined(run.summary, `csi-sanity printed no summary:\n${tail}`);
      assert.strictEqual(run.summary?.failed, 0, tail);
      assert.strictEqual(run.exitCode, 0, tail);
      assert.isAbove(run.summary?.passed ?? 0, 40, tail);
      assert.strictEqual(run.summary?.passed, run.summary?.ran, tail);
    });
  }

  it('never logs the secrets it is given (the host kubeconfig in every secret)', async () => {
    const log = await harness!.driverLog();
    assert.include(log, '"msg":"call"', 'the driver logged its calls (debug)');
    assert.include(log, '[redacted]');
    const credentials = harness!.secretValues;
    assert.lengthOf(credentials, 2, 'the secret kubeconfig carries a client key and certificate');
    for (const value of credentials) assert.notInclude(log, value.slice(0, 64));
    assert.notInclude(log, 'client-key-data');
  });
});
