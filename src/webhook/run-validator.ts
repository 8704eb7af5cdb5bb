import {
  type AdmissionRequest,
  type AdmissionVerdict,
  type Validator,
  Decision,
} from '../admission/index.js';

export interface ValidatorOutcome {
  verdict: AdmissionVerdict;
  error?: unknown;
}

function isVerdict(value: unknown): value is AdmissionVerdict {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AdmissionVerdict).allowed === 'boolean'
  );
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function internalError(validator: Validator, error: unknown): AdmissionVerdict {
  return {
    allowed: false,
    code: 500,
    reason: 'InternalError',
    decision: Decision.InternalError,
    message: `voe webhook ${validator.name} failed while checking this request: ${describeError(error).slice(0, 500)}. The change was refused; retry, and if it persists see the voe webhook logs.`,
  };
}

function settle(validator: Validator, value: unknown): ValidatorOutcome {
  if (isVerdict(value)) {
    const decision =
      typeof value.decision === 'string' && value.decision !== ''
        ? value.decision
        : value.allowed
          ? 'allowed'
          : 'denied';
    return { verdict: decision === value.decision ? value : { ...value, decision } };
  }
  const error = new Error(`webhook ${validator.name} returned no verdict`);
  return { verdict: internalError(validator, error), error };
}

/**
 * Runs one validator and never throws: an exception, a rejected promise or something that is not
 * a verdict becomes a refusal with code 500 InternalError (the API server then shows the message).
 * A synchronous validator is answered synchronously (no promise on the hot path).
 */
export function runValidator(
  validator: Validator,
  request: AdmissionRequest,
): ValidatorOutcome | Promise<ValidatorOutcome> {
  let value: unknown;
  try {
    value = validator.validate(request);
  } catch (error) {
    return { verdict: internalError(validator, error), error };
  }
  if (!isPromiseLike(value)) return settle(validator, value);
  return Promise.resolve(value).then(
    (resolved) => settle(validator, resolved),
    (error: unknown) => ({ verdict: internalError(validator, error), error }),
  );
}
