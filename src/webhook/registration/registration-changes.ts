import type { V1ValidatingWebhook } from '@kubernetes/client-node';

/** The fields of a webhook whose change alters what the API server sends to voe, or how. */
const FIELDS = [
  'failurePolicy',
  'timeoutSeconds',
  'sideEffects',
  'matchPolicy',
  'admissionReviewVersions',
  'rules',
  'matchConditions',
  'namespaceSelector',
  'objectSelector',
] as const;

function shown(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : value === undefined
      ? 'unset'
      : '';
}

/** "failurePolicy Fail -> Ignore" for a scalar; "rules changed" for a structure. */
function change(field: string, before: unknown, after: unknown): string {
  const [b, a] = [shown(before), shown(after)];
  return b !== '' && a !== '' ? `${field} ${b} -> ${a}` : `${field} changed`;
}

/**
 * What differs between the webhooks of a ValidatingWebhookConfiguration as they were (`before`) and
 * as they are (`after`), one phrase per change, e.g. `pvc-resize.voe.harvesterhci.io: failurePolicy
 * Fail -> Ignore`, `vm.voe.harvesterhci.io: removed`, `setting.voe.harvesterhci.io: caBundle
 * changed` (never its content). Empty when nothing that matters changed. Pure.
 */
export function registrationChanges(
  before: readonly V1ValidatingWebhook[],
  after: readonly V1ValidatingWebhook[],
): string[] {
  const changes: string[] = [];
  const now = new Map(after.map((w) => [w.name, w]));
  for (const was of before) {
    const is = now.get(was.name);
    if (!is) {
      changes.push(`${was.name}: removed`);
      continue;
    }
    if (was.clientConfig.url !== is.clientConfig.url)
      changes.push(`${was.name}: ${change('url', was.clientConfig.url, is.clientConfig.url)}`);
    if (JSON.stringify(was.clientConfig.service) !== JSON.stringify(is.clientConfig.service))
      changes.push(`${was.name}: service changed`);
    if (was.clientConfig.caBundle !== is.clientConfig.caBundle)
      changes.push(`${was.name}: caBundle changed`);
    for (const field of FIELDS) {
      if (JSON.stringify(was[field]) !== JSON.stringify(is[field]))
        changes.push(`${was.name}: ${change(field, was[field], is[field])}`);
    }
  }
  const known = new Set(before.map((w) => w.name));
  for (const w of after) if (!known.has(w.name)) changes.push(`${w.name}: added`);
  return changes;
}
