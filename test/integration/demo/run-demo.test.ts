/**
 * runDemo against a real kube-apiserver where something other than the voe webhook refuses a
 * resize the design expects the voe webhook to refuse: a ValidatingAdmissionPolicy that denies
 * every update of the PVC data-topolvm-fs (step 9 expects the voe webhook's hotplug-filesystem
 * refusal), with a message that even imitates voe's. The step must be a mismatch naming the
 * policy, report.ok false; every other step is still the voe webhook's own answer.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { formatDemoStep, formatDemoSummary } from '../../../src/cli/format-demo.js';
import { runDemo } from '../../../src/demo/index.js';
import { DEMO_STEPS } from '../../../src/demo/demo-steps.js';
import { SCENARIO } from '../../../src/demo/expansion-scenario.js';
import { VOE_PVC_RESIZE_WEBHOOK } from '../../../src/demo/judge-step.js';
import { createLogger } from '../../../src/log/index.js';
import { eventually } from '../../support/eventually.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const FROZEN = SCENARIO.topolvmFilesystemHotplug;
const POLICY = 'voe-test-freeze-topolvm-fs';
const BINDING = 'voe-test-freeze-topolvm-fs-binding';

/** Creates the policy and its binding and waits until the API server enforces it (a probe PVC of the same name elsewhere is refused). */
async function freezeClaimByPolicy(): Promise<void> {
  const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  await admission.createValidatingAdmissionPolicy({
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: POLICY },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['UPDATE'],
              resources: ['persistentvolumeclaims'],
            },
          ],
        },
        // Imitates the voe webhook's refusal of step 9: words alone must not pass for the voe webhook's answer.
        validations: [
          {
            expression: `object.metadata.name != '${FROZEN}'`,
            message: `admission webhook "${VOE_PVC_RESIZE_WEBHOOK}" denied the request: PVC_EXPAND: Expansion of hotplugged PVC 'default/${FROZEN}' in filesystem mode is not supported`,
          },
        ],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: BINDING },
      spec: { policyName: POLICY, validationActions: ['Deny'] },
    },
  });
  const core = cp.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'vap-probe' } } });
  await core.createNamespacedPersistentVolumeClaim({
    namespace: 'vap-probe',
    body: {
      metadata: { name: FROZEN },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
  });
  let probe = 0;
  await eventually(
    async () => {
      probe += 1;
      try {
        await core.patchNamespacedPersistentVolumeClaim(
          {
            namespace: 'vap-probe',
            name: FROZEN,
            dryRun: 'All',
            body: { metadata: { labels: { probe: String(probe) } } },
          },
          MERGE,
        );
        return false;
      } catch (error) {
        return String((error as { body?: unknown }).body).includes(
          `ValidatingAdmissionPolicy '${POLICY}'`,
        );
      }
    },
    30_000,
    'the ValidatingAdmissionPolicy is enforced',
  );
}

describe('runDemo with a ValidatingAdmissionPolicy in the way', () => {
  it("a refusal by a ValidatingAdmissionPolicy where the design expects the voe webhook's is a mismatch, and the report is not ok", async () => {
    await freezeClaimByPolicy();
    const report = await runDemo({
      kubeConfig: cp.kubeConfig,
      logger: createLogger({ level: 'silent' }),
    });

    assert.isFalse(report.ok);
    assert.strictEqual(report.steps.length, DEMO_STEPS.length);
    const frozen = report.steps.filter((s) => s.pvc === `default/${FROZEN}`);
    assert.strictEqual(frozen.length, 1);
    const step = frozen[0]!;
    assert.strictEqual(step.expected, 'refused');
    assert.strictEqual(step.expectedDecision, 'hotplug-filesystem');
    assert.strictEqual(step.outcome, 'refused');
    assert.strictEqual(step.code, 422);
    assert.match(
      step.message ?? '',
      new RegExp(
        `ValidatingAdmissionPolicy '${POLICY}' with binding '${BINDING}' denied request: `,
      ),
    );
    assert.strictEqual(step.refusedBy, 'other');
    assert.isUndefined(
      step.decision,
      'the policy refused before the API server called the voe webhook',
    );
    assert.isFalse(step.ok);
    assert.strictEqual(
      step.mismatch,
      `expected REFUSED by the voe webhook (hotplug-filesystem); got REFUSED (422) by ValidatingAdmissionPolicy '${POLICY}' (binding '${BINDING}'), ` +
        'not by the voe webhook; the voe webhook was not called for this update',
    );

    // Every other step is the voe webhook's own answer, for the reason the design gives.
    for (const other of report.steps.filter((s) => s !== step)) {
      assert.isTrue(other.ok, `step ${other.step}: ${other.mismatch ?? ''}`);
      assert.isUndefined(other.mismatch);
      if (other.outcome === 'refused') {
        assert.strictEqual(other.refusedBy, 'voe-webhook', `step ${other.step}`);
        assert.strictEqual(other.decision, other.expectedDecision, `step ${other.step}`);
        assert.ok(
          other.message?.startsWith(
            `admission webhook "${VOE_PVC_RESIZE_WEBHOOK}" denied the request: PVC_EXPAND: `,
          ),
          other.message,
        );
      } else {
        assert.isUndefined(other.refusedBy);
        assert.match(other.decision ?? '', /^allowed/, `step ${other.step}`);
      }
    }
    assert.deepStrictEqual(
      report.steps.filter((s) => s.outcome === 'refused' && s !== step).map((s) => s.decision),
      [
        'longhorn-v2-version',
        'provisioner-not-validated',
        'provisioner-not-validated',
        'gate-missing',
      ],
    );

    const printed = formatDemoStep(step);
    assert.match(printed, /data-topolvm-fs 10Gi -> 20Gi: REFUSED \(422\) {2}<-- MISMATCH\n/);
    assert.match(
      printed,
      /\n {4}MISMATCH: expected REFUSED by the voe webhook \(hotplug-filesystem\); got REFUSED \(422\) by ValidatingAdmissionPolicy /,
    );
    const summary = formatDemoSummary(report);
    assert.match(
      summary,
      /11 resizes: 6 admitted, 4 refused by the voe webhook \(.*\), 1 refused by something other than the voe webhook\.\n/,
    );
    assert.match(summary, /1 answer\(s\) differ from Harvester's design: step\(s\) 9\.\n$/);
  });
});
