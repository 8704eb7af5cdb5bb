import { it } from 'mocha';
import { assert } from 'chai';
import {
  MAX_WARNING_LENGTH,
  toAdmissionReview,
} from '../../../../src/webhook/review/to-admission-review.js';

it('allowed: no status, uid echoed', () => {
  assert.deepStrictEqual(toAdmissionReview('u1', { allowed: true, decision: 'not-resize' }), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'u1', allowed: true },
  });
});

it('denied Invalid: status carries code, message, reason and one FieldValueInvalid cause (as Harvester answers)', () => {
  const review = toAdmissionReview('u2', {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message: 'PVC_EXPAND: no',
    decision: 'gate-missing',
    field: 'spec.resources.requests.storage',
  });
  assert.deepStrictEqual(review.response, {
    uid: 'u2',
    allowed: false,
    status: {
      code: 422,
      message: 'PVC_EXPAND: no',
      reason: 'Invalid',
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'PVC_EXPAND: no',
            field: 'spec.resources.requests.storage',
          },
        ],
      },
    },
  });
  const fieldless = toAdmissionReview('u2', {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message: 'no',
    decision: 'x',
  });
  assert.deepStrictEqual(fieldless.response.status?.details, {
    causes: [{ reason: 'FieldValueInvalid', message: 'no' }],
  });
});

it('denied InternalError: no causes', () => {
  const review = toAdmissionReview('u5', {
    allowed: false,
    code: 500,
    reason: 'InternalError',
    message: 'internal error: x',
    decision: 'internal-error',
  });
  assert.deepStrictEqual(review.response.status, {
    code: 500,
    message: 'internal error: x',
    reason: 'InternalError',
  });
});

it('denied without details defaults to 400 BadRequest (as the API server raises a lower code) with the decision as message', () => {
  const review = toAdmissionReview('u3', { allowed: false, decision: 'x', code: 200 });
  assert.deepStrictEqual(review.response.status, {
    code: 400,
    message: 'denied (x)',
    reason: 'BadRequest',
  });
});

it('warnings are kept on one line, trimmed to 120 characters, empty ones dropped', () => {
  const long = 'é'.repeat(300);
  const review = toAdmissionReview('u4', {
    allowed: true,
    decision: 'ok',
    warnings: ['short', long, '', 'two\nlines\t', '   '],
  });
  const warnings = review.response.warnings ?? [];
  assert.strictEqual(warnings.length, 3);
  assert.strictEqual(warnings[0], 'short');
  assert.strictEqual(Array.from(warnings[1] ?? '').length, MAX_WARNING_LENGTH);
  assert.ok(warnings[1]?.endsWith('…'));
  assert.strictEqual(warnings[2], 'two lines');
});

it('no warnings field when there are none', () => {
  assert.isFalse(
    'warnings' in toAdmissionReview('u5', { allowed: true, decision: 'ok', warnings: [] }).response,
  );
});
