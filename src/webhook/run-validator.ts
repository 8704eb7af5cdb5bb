import type { AdmissionRequest, AdmissionVerdict, Validator } from './validator.js';

function isVerdict(value: unknown): value is AdmissionVerdict {
  return typeof value === 'object' && value !== null && typeof (value as AdmissionVerdict).allowed === 'boolean';
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs one validator and never throws: an exception, a rejected promise or something that is not
 * a verdict becomes a refusal with code 500 InternalError (the API server then shows the message).
 */
export async function runValidator(validator: Validator, request: AdmissionRequest): Promise<{ verdict: AdmissionVerdict; error?: unknown }> {
  try {
    const verdict: unknown = await validator.validate(request);
    if (isVerdict(verdict)) {
      const decision = typeof verdict.decision === 'string' && verdict.decision !== '' ? verdict.decision : verdict.allowed ? 'allowed' : 'denied';
      return { verdict: { ...verdict, decision } };
    }
    const error = new Error(`webhook ${validator.name} returned no verdict`);
    return { verdict: internalError(validator, error), error };
  } catch (error) {
    return { verdict: internalError(validator, error), error };
  }
}

function internalError(validator: Validator, error: unknown): AdmissionVerdict {
  return {
    allowed: false,
    code: 500,
    reason: 'InternalError',
    decision: 'internal-error',
    message: `voe webhook ${validator.name} failed while checking this request: ${describeError(error).slice(0, 500)}. The change was refused; retry, and if it persists see the voe webhook logs.`,
  };
}
