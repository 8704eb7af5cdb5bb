import { it } from 'mocha';
import { assert } from 'chai';
import type { AdmissionRequest, Validator } from '../../../src/admission/validators/validator.js';
import { runValidator } from '../../../src/webhook/run-validator.js';

const request: AdmissionRequest = {
  uid: 'u',
  operation: 'UPDATE',
  kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
  resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
};

function validator(validate: Validator['validate']): Validator {
  return { name: 'pvc-resize', path: '/validate/pvc-resize', validate };
}

it('a verdict passes through', async () => {
  const { verdict, error } = await runValidator(
    validator(() => ({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: 'm',
      decision: 'd',
    })),
    request,
  );
  assert.isUndefined(error);
  assert.deepStrictEqual(verdict, {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message: 'm',
    decision: 'd',
  });
});

for (const [name, validate] of [
  [
    'throws',
    () => {
      throw new Error('cache exploded');
    },
  ],
  ['rejects', () => Promise.reject(new Error('cache exploded'))],
  [
    'throws a non-error',
    () => {
      throw 'cache exploded';
    },
  ],
] as Array<[string, Validator['validate']]>) {
  it(`a validator that ${name} yields a 500 InternalError refusal naming the webhook`, async () => {
    const { verdict, error } = await runValidator(validator(validate), request);
    assert.ok(error !== undefined);
    assert.isFalse(verdict.allowed);
    assert.strictEqual(verdict.code, 500);
    assert.strictEqual(verdict.reason, 'InternalError');
    assert.strictEqual(verdict.decision, 'internal-error');
    assert.match(verdict.message ?? '', /pvc-resize failed.*cache exploded/);
  });
}

it('something that is not a verdict is an internal error', async () => {
  const { verdict } = await runValidator(
    validator(() => undefined as never),
    request,
  );
  assert.strictEqual(verdict.code, 500);
  assert.match(verdict.message ?? '', /returned no verdict/);
});

it('a missing decision label is filled in', async () => {
  const { verdict } = await runValidator(
    validator(() => ({ allowed: true }) as never),
    request,
  );
  assert.strictEqual(verdict.decision, 'allowed');
});
