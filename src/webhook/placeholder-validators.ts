import { WEBHOOK_ENDPOINTS } from './webhook-endpoints.js';
import type { Validator } from './validator.js';

/**
 * PLACEHOLDER until the admission validators (decideResize & co.) land: allow-all validators with
 * the real names and paths, so `voe serve` can be wired, registered and measured end to end.
 * Same signature as the real `createValidators(caches, options)` factory; swap it in src/cli/commands/serve.ts.
 */
export function createPlaceholderValidators(_caches: unknown, _options: Record<string, unknown> = {}): Validator[] {
  return Object.values(WEBHOOK_ENDPOINTS).map(({ name, path }) => ({
    name,
    path,
    validate: () => ({ allowed: true, decision: 'placeholder-allow' }),
  }));
}

/** PLACEHOLDER informer caches (src/kube is not wired yet): always synced, nothing to stop. */
export function startPlaceholderCaches(): Promise<{ caches: Record<string, never>; ready: () => boolean; stop: () => Promise<void> }> {
  return Promise.resolve({ caches: {}, ready: () => true, stop: () => Promise.resolve() });
}
