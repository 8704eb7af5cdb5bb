import { describe, it } from 'mocha';
import { assert } from 'chai';
import { resolveAdmissionOptions } from '../../../src/admission/admission-options.js';
import type { DecisionValue } from '../../../src/admission/decision.js';
import type { ResizeFinding } from '../../../src/admission/resize-snapshot.js';
import { resizeCase, type RuleJudgement } from '../../../src/admission/resize-case.js';
import { resizeVerdict } from '../../../src/admission/resize-verdict.js';
import { kubeVirt, pvc, resized, vm } from '../../support/webhook/admission-objects.js';

const KEY = 'default/vm1-disk-0-kq8zt';
const options = resolveAdmissionOptions();

/** The case of vm1's root disk growing, vm1 running or stopped. */
function growth(running: boolean) {
  const claim = pvc('vm1-disk-0-kq8zt');
  return resizeCase(
    {
      oldPvc: claim,
      pvc: resized(claim, '20Gi'),
      vms: [vm('vm1', running ? {} : { status: 'Stopped' })],
      kubeVirt: kubeVirt(),
      expandSetting: { state: 'missing' },
    },
    options,
    KEY,
  );
}

/** A real label for each check's refusal and error, distinct per check, so a verdict shows which finding decided. */
const REFUSED: Record<ResizeFinding['check'], DecisionValue> = {
  'api-server': 'api-limit-range',
  resize: 'size-out-of-range',
  vm: 'kubevirt-missing',
  'expand-disks': 'gate-missing',
  hotplug: 'hotplug-filesystem',
  provisioner: 'provisioner-not-validated',
  longhorn: 'longhorn-v2',
  quota: 'api-quota-exceeded',
};
const ERRED: Partial<Record<ResizeFinding['check'], DecisionValue>> = {
  'expand-disks': 'kubevirt-missing',
  provisioner: 'provisioner-unknown',
};

function finding(
  check: ResizeFinding['check'],
  outcome: ResizeFinding['outcome'],
  decision: DecisionValue = outcome === 'pass'
    ? 'allowed'
    : outcome === 'skip'
      ? 'api-policy-unreadable'
      : outcome === 'error'
        ? (ERRED[check] ?? 'internal-error')
        : REFUSED[check],
): ResizeFinding {
  return { check, outcome, decision, message: `${check}: ${outcome}` };
}

const vmOnline: RuleJudgement = { finding: finding('vm', 'pass', 'online') };
const vmOffline: RuleJudgement = { finding: finding('vm', 'pass', 'allowed-offline') };

describe('resizeVerdict (the answer from the rules, in order)', () => {
  it('reads the case once: who uses the PVC, its provisioners and volume mode, the advice', () => {
    const running = growth(true);
    assert.deepStrictEqual(running.users.running, ['default/vm1']);
    assert.deepStrictEqual(running.provisioners, ['driver.longhorn.io']);
    assert.strictEqual(running.volumeMode, 'Block');
    assert.strictEqual(running.stopAdvice, 'stop VM default/vm1 and expand offline');
    assert.deepStrictEqual(growth(false).users.running, []);
  });

  it('no running VM: allowed offline, the first finding says why, no warnings, every finding listed', () => {
    const judgements = [
      vmOffline,
      { finding: finding('expand-disks', 'refuse') },
      { finding: finding('provisioner', 'pass'), warning: 'Setting not found' },
    ];
    assert.deepStrictEqual(resizeVerdict(growth(false), judgements), {
      allowed: true,
      code: 200,
      message: 'vm: pass',
      warnings: [],
      decision: 'allowed-offline',
      findings: judgements.map((judgement) => judgement.finding),
    });
  });

  it('a running VM: the first refusal decides (422 Invalid), the warnings are kept', () => {
    const judgements = [
      vmOnline,
      { finding: finding('expand-disks', 'pass') },
      { finding: finding('hotplug', 'refuse') },
      { finding: finding('provisioner', 'error'), warning: 'Setting not found' },
    ];
    assert.deepStrictEqual(resizeVerdict(growth(true), judgements), {
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: 'hotplug: refuse',
      warnings: ['Setting not found'],
      decision: 'hotplug-filesystem',
      findings: judgements.map((judgement) => judgement.finding),
    });
  });

  it('an internal error first decides as a 500', () => {
    const verdict = resizeVerdict(growth(true), [
      vmOnline,
      { finding: finding('expand-disks', 'error') },
      { finding: finding('hotplug', 'refuse') },
    ]);
    assert.strictEqual(verdict.code, 500);
    assert.strictEqual(verdict.reason, 'InternalError');
    assert.strictEqual(verdict.decision, 'kubevirt-missing');
  });

  it('nothing refuses: online expansion allowed, warnings in the rules order, skips do not block', () => {
    const verdict = resizeVerdict(growth(true), [
      vmOnline,
      { finding: finding('provisioner', 'pass'), warning: 'first' },
      { finding: finding('longhorn', 'skip'), warning: 'second' },
    ]);
    assert.isTrue(verdict.allowed);
    assert.strictEqual(verdict.decision, 'allowed');
    assert.strictEqual(verdict.message, `Online expansion of PVC ${KEY} is allowed.`);
    assert.deepStrictEqual(verdict.warnings, ['first', 'second']);
  });
});
