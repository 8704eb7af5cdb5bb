/**
 * The V8 heap a chart gives a voe container: NODE_OPTIONS from its `nodeOptions` value, and its
 * old-generation limit below the container's memory limit (V8 would otherwise grow the heap until
 * the kernel kills the container rather than collect).
 */
import { assert } from 'chai';
import type { V1Container } from '@kubernetes/client-node';
import { parseQuantity } from '../../../src/kube/quantity.js';

/** Asserts `container` runs with `nodeOptions` ('' or none: no NODE_OPTIONS) that fit its memory limit. */
export function assertHeapFits(container: V1Container, nodeOptions: string | undefined): void {
  const env = container.env?.find((e) => e.name === 'NODE_OPTIONS');
  if (!nodeOptions) {
    assert.isUndefined(env, `${container.name}: no NODE_OPTIONS without nodeOptions`);
    return;
  }
  assert.strictEqual(env?.value, nodeOptions, container.name);
  const oldSpace = /--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1];
  const limit = container.resources?.limits?.['memory'];
  if (oldSpace === undefined || limit === undefined) return;
  assert.isTrue(
    BigInt(oldSpace) * 2n ** 20n < parseQuantity(String(limit)),
    `${container.name}: --max-old-space-size=${oldSpace} within the memory limit ${String(limit)}`,
  );
}
