import { describe, it } from 'mocha';
import { assert } from 'chai';
import { parseExpandValidation } from '../../../src/settings/index.js';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import { decideResize } from '../../../src/admission/decide-resize.js';
import type { ResizeSnapshot } from '../../../src/admission/resize-snapshot.js';
import { leanVmi } from '../../../src/model/lean-vmi.js';
import {
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornVolume,
  pvc,
  resized,
  storageClass,
  vm,
  vmi,
} from '../../support/webhook/admission-objects.js';
import fc from 'fast-check';

/** Random but real-shaped snapshots: every dimension the decision reads. */
const snapshots = fc
  .record({
    oldGi: fc.integer({ min: 1, max: 64 }),
    newGi: fc.integer({ min: 1, max: 64 }),
    provisioner: fc.constantFrom('driver.longhorn.io', 'nfs.csi.k8s.io', 'topolvm.io'),
    volumeMode: fc.constantFrom<'Block' | 'Filesystem' | null>('Block', 'Filesystem', null),
    vmStatuses: fc.array(
      fc.constantFrom<string | null>('Running', 'Stopped', 'Paused', 'Starting', null),
      { maxLength: 3 },
    ),
    hotplug: fc.boolean(),
    // VMIs of other VMs that have the PVC on their instance only (hotplugged without --persist, or removed from the VM's spec).
    vmiPhases: fc.array(
      fc.constantFrom<string | undefined>(
        'Running',
        'Pending',
        'Scheduled',
        'Unknown',
        'Succeeded',
        'Failed',
        undefined,
      ),
      { maxLength: 2 },
    ),
    vmiHotplug: fc.boolean(),
    lean: fc.boolean(),
    gates: fc.constantFrom<string[]>(['ExpandDisks'], [], ['LiveMigration']),
    kubeVirtVersion: fc.constantFrom('v1.5.2', 'v1.8.1', 'v1.9.0', 'v1.9.0-rc.1'),
    kubeVirtMissing: fc.boolean(),
    value: fc.constantFrom(
      '',
      '{"nfs.csi.k8s.io":true}',
      '{"topolvm.io":true,"nfs.csi.k8s.io":false}',
      '{"driver.longhorn.io":false}',
    ),
    dataEngine: fc.constantFrom('v1', 'v2'),
    frontend: fc.constantFrom('blockdev', 'ublk', 'nvmf'),
    encrypted: fc.boolean(),
    longhornVersion: fc.constantFrom(undefined, 'v1.9.1', 'v1.10.1'),
    policy: fc.constantFrom('auto' as const, 'deny' as const, 'allow' as const),
  })
  .map((p) => {
    const claim = pvc('disk', {
      provisioner: p.provisioner,
      className: 'sc',
      volumeMode: p.volumeMode,
      storage: `${p.oldGi}Gi`,
    });
    const snapshot: ResizeSnapshot = {
      oldPvc: claim,
      pvc: resized(claim, `${p.newGi}Gi`),
      storageClass: storageClass('sc', p.provisioner),
      vms: p.vmStatuses.map((status, i) =>
        vm(`vm${i}`, {
          status,
          volumes: [
            { name: 'd', persistentVolumeClaim: { claimName: 'disk', hotpluggable: p.hotplug } },
          ],
          templates: [],
        }),
      ),
      vmis: p.vmiPhases.map((phase, i) => {
        const instance = vmi(`instance${i}`, {
          ...(phase === undefined ? {} : { phase }),
          volumes: [
            { name: 'd', persistentVolumeClaim: { claimName: 'disk', hotpluggable: p.vmiHotplug } },
          ],
        });
        return p.lean ? leanVmi(instance) : instance;
      }),
      kubeVirt: p.kubeVirtMissing ? null : kubeVirt({ gates: p.gates, version: p.kubeVirtVersion }),
      expandSetting: {
        state: 'parsed',
        validation: parseExpandValidation(harvesterSetting(p.value)),
      },
      longhorn: {
        volume: longhornVolume({
          dataEngine: p.dataEngine,
          frontend: p.frontend,
          encrypted: p.encrypted,
        }),
        engines: [longhornEngine({ dataEngine: p.dataEngine })],
        ...(p.longhornVersion ? { version: p.longhornVersion } : {}),
      },
    };
    return { p, snapshot };
  });

describe('decideResize (properties)', () => {
  it('holds its invariants on random real-shaped snapshots', () => {
    fc.assert(
      fc.property(snapshots, ({ p, snapshot }) => {
        const result = decideResize(
          snapshot,
          resolveAdmissionOptions({ longhornV2Expansion: p.policy }),
        );
        const runningVmis = p.vmiPhases.filter(
          (phase) => phase !== 'Succeeded' && phase !== 'Failed',
        );
        const anyRunning =
          p.vmStatuses.some((status) => status !== 'Stopped') || runningVmis.length > 0;
        if (p.newGi <= p.oldGi) return result.allowed && result.decision === 'not-resize';
        if (!anyRunning) return result.allowed && result.decision === 'allowed-offline';
        assert.strictEqual(result.findings.length, 5);
        const blocking = result.findings.find(
          (f) => f.outcome === 'refuse' || f.outcome === 'error',
        );
        if (result.allowed) {
          assert.isUndefined(blocking);
          assert.strictEqual(result.code, 200);
        } else {
          assert.strictEqual(result.decision, blocking?.decision);
          if (blocking?.outcome === 'error') {
            // Internal errors (here the missing KubeVirt CR) are 500 and carry no PVC_EXPAND prefix: a retry may succeed.
            assert.strictEqual(result.code, 500);
            assert.strictEqual(result.reason, 'InternalError');
            assert.ok(result.message.startsWith('internal error: '));
          } else {
            assert.strictEqual(result.code, 422);
            assert.strictEqual(result.reason, 'Invalid');
            assert.ok(result.message.startsWith('PVC_EXPAND: '));
          }
        }
        // A refusal by an earlier check is never hidden by a later one.
        if (p.kubeVirtMissing) assert.strictEqual(result.decision, 'kubevirt-missing');
        // An encrypted Longhorn v2 volume is never allowed online, whatever the policy.
        if (p.provisioner === 'driver.longhorn.io' && p.dataEngine === 'v2' && p.encrypted)
          assert.isFalse(result.allowed);
        // A Filesystem volume hotplugged into any VM (by its spec, or on its running VMI only) never grows online.
        const hotplugged =
          (p.hotplug && p.vmStatuses.length > 0) || (p.vmiHotplug && runningVmis.length > 0);
        if (p.volumeMode !== 'Block' && hotplugged) assert.isFalse(result.allowed);
        // Every running VMI's VM is named among those to stop (messages name up to three VMs).
        const runningCount =
          p.vmStatuses.filter((status) => status !== 'Stopped').length + runningVmis.length;
        const advisesStop = [
          'gate-missing',
          'hotplug-filesystem',
          'provisioner-not-validated',
        ].includes(result.decision);
        if (advisesStop && runningCount <= 3)
          for (const [i, phase] of p.vmiPhases.entries())
            if (phase !== 'Succeeded' && phase !== 'Failed')
              assert.match(result.message, new RegExp(`default/instance${i}\\b`));
        // Only a validated provisioner is allowed.
        if (result.allowed)
          assert.ok(parseExpandValidation(harvesterSetting(p.value)).allows(p.provisioner));
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
