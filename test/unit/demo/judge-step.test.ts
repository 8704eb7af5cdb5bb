import { describe, it } from 'mocha';
import { assert } from 'chai';
import type { DemoExpectation } from '../../../src/demo/demo-steps.js';
import {
  judgeStep,
  isVoeRefusal,
  refuserOf,
  VOE_PVC_RESIZE_WEBHOOK,
  type ApiAnswer,
  type VoeAnswer,
} from '../../../src/demo/judge-step.js';
import { VoeAnswers } from '../../../src/demo/voe-answers.js';
import type {
  AdmissionRequest,
  AdmissionVerdict,
  Validator,
} from '../../../src/admission/validators/validator.js';

const GATE =
  'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ExpandDisks is not listed in featureGates of KubeVirt harvester-system/kubevirt: add it.';
const voeRefused: VoeAnswer = {
  allowed: false,
  decision: 'gate-missing',
  code: 422,
  message: GATE,
};
const voeAllowed: VoeAnswer = { allowed: true, decision: 'allowed' };
const fromVoe: ApiAnswer = {
  outcome: 'refused',
  code: 422,
  reason: 'Invalid',
  message: `admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: ${GATE}`,
};
const admitted: ApiAnswer = { outcome: 'admitted' };
const expectGate: DemoExpectation = { expect: 'refused', decision: 'gate-missing' };
const expectAdmitted: DemoExpectation = { expect: 'admitted' };

/** Refusals by others, as the API server words them (kube-apiserver 1.33). */
const policy: ApiAnswer = {
  outcome: 'refused',
  code: 422,
  reason: 'Invalid',
  message: `persistentvolumeclaims "vm1-disk-0-kq8zt" is forbidden: ValidatingAdmissionPolicy 'freeze' with binding 'freeze-all' denied request: ${GATE}`,
};
const rbac: ApiAnswer = {
  outcome: 'refused',
  code: 403,
  reason: 'Forbidden',
  message:
    'persistentvolumeclaims "vm1-disk-0-kq8zt" is forbidden: User "bob" cannot patch resource "persistentvolumeclaims" in API group "" in the namespace "default"',
};
const validation: ApiAnswer = {
  outcome: 'refused',
  code: 422,
  reason: 'Invalid',
  message:
    'PersistentVolumeClaim "vm1-disk-0-kq8zt" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
};
const conflict: ApiAnswer = {
  outcome: 'refused',
  code: 409,
  reason: 'Conflict',
  message:
    'Operation cannot be fulfilled on persistentvolumeclaims "vm1-disk-0-kq8zt": the object has been modified',
};
const otherWebhook: ApiAnswer = {
  outcome: 'refused',
  code: 422,
  reason: 'Invalid',
  message: `admission webhook "quota.example.com" denied the request: ${GATE}`,
};

describe("judgeStep: a refusal matches only when it is the voe webhook's, for the expected reason", () => {
  it("the voe webhook's refusal with the expected decision matches", () => {
    assert.strictEqual(VOE_PVC_RESIZE_WEBHOOK, 'pvc-resize.voe.harvesterhci.io');
    assert.deepStrictEqual(judgeStep(expectGate, fromVoe, voeRefused), {
      ok: true,
      refusedBy: 'voe-webhook',
    });
  });

  it("the voe webhook's refusal for another reason does not", () => {
    assert.deepStrictEqual(
      judgeStep({ expect: 'refused', decision: 'hotplug-filesystem' }, fromVoe, voeRefused),
      {
        ok: false,
        refusedBy: 'voe-webhook',
        mismatch:
          'expected REFUSED by the voe webhook (hotplug-filesystem); got REFUSED by the voe webhook for another reason (gate-missing)',
      },
    );
  });

  it("a ValidatingAdmissionPolicy, RBAC, field validation, a conflict or another webhook is a mismatch, even with voe's words", () => {
    const cases: Array<[ApiAnswer, VoeAnswer | undefined, string]> = [
      [
        policy,
        undefined,
        "REFUSED (422) by ValidatingAdmissionPolicy 'freeze' (binding 'freeze-all'), not by the voe webhook; the voe webhook was not called for this update",
      ],
      [
        rbac,
        undefined,
        'REFUSED (403) by the API server (403 Forbidden: not an admission webhook; e.g. RBAC, validation or another admission plugin), not by the voe webhook; the voe webhook was not called for this update',
      ],
      [
        validation,
        undefined,
        'REFUSED (422) by the API server (422 Invalid: not an admission webhook; e.g. RBAC, validation or another admission plugin), not by the voe webhook; the voe webhook was not called for this update',
      ],
      [
        conflict,
        undefined,
        'REFUSED (409) by the API server (409 Conflict: not an admission webhook; e.g. RBAC, validation or another admission plugin), not by the voe webhook; the voe webhook was not called for this update',
      ],
      [
        otherWebhook,
        voeAllowed,
        'REFUSED (422) by admission webhook "quota.example.com", not by the voe webhook; the voe webhook admitted it (allowed)',
      ],
      // Webhooks run in parallel: voe refused too, but the API server returned the other one's refusal.
      [
        otherWebhook,
        voeRefused,
        'REFUSED (422) by admission webhook "quota.example.com", not by the voe webhook; the voe webhook refused it (gate-missing), but that is not the refusal the API server returned',
      ],
    ];
    for (const [answer, voe, got] of cases) {
      assert.deepStrictEqual(
        judgeStep(expectGate, answer, voe),
        {
          ok: false,
          refusedBy: 'other',
          mismatch: `expected REFUSED by the voe webhook (gate-missing); got ${got}`,
        },
        answer.outcome === 'refused' ? answer.message : '',
      );
      assert.isFalse(judgeStep(expectAdmitted, answer, voe).ok);
    }
  });

  it("voe's webhook name and words are not enough: the message must be exactly what the demo's webhook answered this update, with its code", () => {
    // A webhook registered elsewhere under voe's name, when the demo's webhook was not called.
    assert.isFalse(isVoeRefusal(fromVoe, undefined));
    assert.strictEqual(judgeStep(expectGate, fromVoe, undefined).refusedBy, 'other');
    assert.match(
      judgeStep(expectGate, fromVoe, undefined).mismatch ?? '',
      /by admission webhook "pvc-resize\.voe\.harvesterhci\.io", not by the voe webhook; the voe webhook was not called/,
    );
    // The demo's webhook admitted it.
    assert.isFalse(isVoeRefusal(fromVoe, voeAllowed));
    // Another message, another code, or a refusal without the PVC_EXPAND prefix.
    assert.isFalse(isVoeRefusal(fromVoe, { ...voeRefused, message: `${GATE} (more)` }));
    assert.isFalse(isVoeRefusal(fromVoe, { ...voeRefused, code: 403 }));
    const internal = 'internal error: the admission caches are not synced yet; retry in a moment.';
    assert.isFalse(
      isVoeRefusal(
        {
          outcome: 'refused',
          code: 422,
          message: `admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: ${internal}`,
        },
        { allowed: false, decision: 'cache-not-synced', code: 422, message: internal },
      ),
    );
    assert.isFalse(isVoeRefusal(admitted, voeRefused));
  });

  it("an admission matches an expected admission, whatever the voe webhook's label; an expected refusal that was admitted is a mismatch", () => {
    assert.deepStrictEqual(judgeStep(expectAdmitted, admitted, voeAllowed), { ok: true });
    assert.deepStrictEqual(
      judgeStep(expectAdmitted, admitted, { allowed: true, decision: 'allowed-offline' }),
      { ok: true },
    );
    assert.deepStrictEqual(judgeStep(expectAdmitted, admitted, undefined), { ok: true });
    assert.deepStrictEqual(judgeStep(expectGate, admitted, voeAllowed), {
      ok: false,
      mismatch:
        "expected REFUSED by the voe webhook (gate-missing); got ADMITTED (the voe webhook's decision: allowed)",
    });
    assert.deepStrictEqual(judgeStep(expectGate, admitted, undefined), {
      ok: false,
      mismatch: 'expected REFUSED by the voe webhook (gate-missing); got ADMITTED',
    });
  });

  it('the voe webhook refusing an update the design admits is a mismatch', () => {
    assert.deepStrictEqual(judgeStep(expectAdmitted, fromVoe, voeRefused), {
      ok: false,
      refusedBy: 'voe-webhook',
      mismatch: 'expected ADMITTED; got REFUSED by the voe webhook (gate-missing)',
    });
  });

  it('refuserOf names a policy without a binding too', () => {
    assert.strictEqual(
      refuserOf({
        code: 403,
        message: "x is forbidden: ValidatingAdmissionPolicy 'p' denied request: no",
      }),
      "ValidatingAdmissionPolicy 'p'",
    );
  });
});

describe("VoeAnswers: the demo webhook's pvc-resize verdicts, per update", () => {
  const request = (name: string): AdmissionRequest => ({
    uid: name,
    kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
    namespace: 'default',
    name,
    operation: 'UPDATE',
  });
  const fixed = (
    name: string,
    path: string,
    verdict: AdmissionVerdict | Promise<AdmissionVerdict>,
  ): Validator => ({ name, path, validate: () => verdict });

  it('records what the pvc-resize validator answers (sync or async) and leaves the others alone', async () => {
    const answers = new VoeAnswers();
    const refusal: AdmissionVerdict = {
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: GATE,
      decision: 'gate-missing',
      field: 'spec.resources.requests.storage',
    };
    const vm = fixed('vm', '/validate/vm', { allowed: true, decision: 'vm' });
    const [pvc, other] = answers.record([fixed('pvc-resize', '/validate/pvc-resize', refusal), vm]);
    assert.strictEqual(other, vm);
    assert.strictEqual(pvc?.name, 'pvc-resize');
    assert.strictEqual(pvc?.path, '/validate/pvc-resize');
    const first = answers.mark();
    assert.strictEqual(pvc?.validate(request('a')), refusal, 'the verdict is answered unchanged');
    assert.deepStrictEqual(answers.since(first, 'default/a'), {
      allowed: false,
      decision: 'gate-missing',
      code: 422,
      message: GATE,
    });
    assert.isUndefined(answers.since(first, 'default/b'));
    const second = answers.mark();
    assert.isUndefined(answers.since(second, 'default/a'), 'only verdicts after the mark');
    other?.validate(request('a'));
    assert.isUndefined(answers.since(second, 'default/a'), 'the vm validator is not recorded');

    const later = new VoeAnswers();
    const [wrapped] = later.record([
      fixed(
        'pvc-resize',
        '/validate/pvc-resize',
        Promise.resolve({ allowed: true, decision: 'allowed-offline' }),
      ),
    ]);
    assert.deepStrictEqual(await wrapped?.validate(request('c')), {
      allowed: true,
      decision: 'allowed-offline',
    });
    assert.deepStrictEqual(later.since(0, 'default/c'), {
      allowed: true,
      decision: 'allowed-offline',
    });
  });
});
