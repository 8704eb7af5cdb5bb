import type { KubeClientConfig } from '../../kube/index.js';
import { requestJson, resourcePath } from '../../kube/index.js';
import type { JsonPatchOperation } from '../host/host-objects.js';
import type { GuestNode, Taint } from './guest-objects.js';

/**
 * Sets the guest node's taints: a JSON Patch guarded by the resourceVersion the node was read at
 * (a node changed meanwhile fails, and the monitor decides again from the new one), touching
 * nothing but `spec.taints`, as Harvester's addTaint/removeTaint update the node.
 */
export async function patchNodeTaints(
  guest: KubeClientConfig,
  node: GuestNode,
  taints: Taint[],
): Promise<void> {
  const name = node.metadata?.name ?? '';
  const operations: JsonPatchOperation[] = [
    { op: 'test', path: '/metadata/resourceVersion', value: node.metadata?.resourceVersion },
    node.spec?.taints
      ? { op: 'replace', path: '/spec/taints', value: taints }
      : { op: 'add', path: '/spec/taints', value: taints },
  ];
  await requestJson(guest, {
    method: 'PATCH',
    path: resourcePath({ group: '', version: 'v1', plural: 'nodes', name }),
    contentType: 'application/json-patch+json',
    body: operations,
  });
}
