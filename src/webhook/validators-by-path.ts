import type { Validator } from '../admission/index.js';
import { WebhookError } from './webhook-error.js';

/**
 * The validators by their path, in their order: WEBHOOK_INVALID_OPTIONS for a path not starting
 * with "/", WEBHOOK_DUPLICATE_PATH for two validators on one path.
 */
export function validatorsByPath(validators: readonly Validator[]): Map<string, Validator> {
  const byPath = new Map<string, Validator>();
  for (const validator of validators) {
    if (!validator.path.startsWith('/')) {
      throw new WebhookError(
        'WEBHOOK_INVALID_OPTIONS',
        `Validator ${validator.name} has path "${validator.path}"; paths must start with "/".`,
      );
    }
    if (byPath.has(validator.path)) {
      throw new WebhookError(
        'WEBHOOK_DUPLICATE_PATH',
        `Validators ${byPath.get(validator.path)?.name} and ${validator.name} both use path ${validator.path}; give each its own path.`,
      );
    }
    byPath.set(validator.path, validator);
  }
  return byPath;
}
