import { parseTree, type Node } from 'jsonc-parser';
import { isJsonObject } from '../errors/index.js';
import type { PersistentVolumeClaim } from './kubernetes-objects.js';
import type { VirtualMachine, VmVolume } from './kubevirt-objects.js';

/** VM annotation listing the PVCs Harvester creates for the VM (a JSON list of PVC objects). */
export const VOLUME_CLAIM_TEMPLATES_ANNOTATION = 'harvesterhci.io/volumeClaimTemplates';

/**
 * What Go's json.Unmarshal into a PVC would reject in the fields the validator reads: metadata,
 * spec, spec.resources and spec.resources.requests must be objects and spec.storageClassName a
 * string, where present and not null (null is Go's zero value). "" when they are.
 */
function wrongShape(entry: Record<string, unknown>): string {
  // Present, not null, and no object.
  const notObject = (value: unknown): boolean =>
    value !== undefined && value !== null && !isJsonObject(value);
  if (notObject(entry['metadata'])) return 'has a metadata that is not an object';
  if (notObject(entry['spec'])) return 'has a spec that is not an object';
  const spec = isJsonObject(entry['spec']) ? entry['spec'] : {};
  if (notObject(spec['resources'])) return 'has a spec.resources that is not an object';
  const resources = isJsonObject(spec['resources']) ? spec['resources'] : {};
  if (notObject(resources['requests']))
    return 'has a spec.resources.requests that is not an object';
  const storageClass = spec['storageClassName'];
  if (storageClass !== undefined && storageClass !== null && typeof storageClass !== 'string')
    return 'has a spec.storageClassName that is not a string';
  return '';
}

/** One volumeClaimTemplates entry, with the raw JSON text of its spec.resources.requests.storage. */
export interface ClaimTemplate {
  pvc: PersistentVolumeClaim;
  /**
   * The storage request's JSON value text as written (`"20Gi"` with its quotes, `1e3`, `null`),
   * undefined when absent: read it with readJsonQuantity, as Go decodes a Quantity from the raw
   * text (JSON.parse would decode escapes first, and read numbers as doubles). For duplicate keys,
   * the last, as JSON.parse and Go read them.
   */
  storage: string | undefined;
}

/** The value of the last property `key` of a JSON object node. */
function lastProperty(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== 'object') return undefined;
  let found: Node | undefined;
  for (const property of node.children ?? []) {
    const [name, value] = property.children ?? [];
    if (name?.value === key && value) found = value;
  }
  return found;
}

/**
 * Pairs the entries of a parsed annotation (a JSON list, validated by JSON.parse), each with its index in the list, with the raw
 * text of their storage requests.
 */
function withStorageTokens(
  text: string,
  entries: ReadonlyArray<[number, PersistentVolumeClaim]>,
): ClaimTemplate[] {
  const root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  return entries.map(([index, pvc]) => {
    let node = root?.type === 'array' ? root.children?.[index] : undefined;
    for (const key of ['spec', 'resources', 'requests', 'storage']) node = lastProperty(node, key);
    return { pvc, storage: node ? text.slice(node.offset, node.offset + node.length) : undefined };
  });
}

/**
 * Reads a volumeClaimTemplates annotation as Harvester's VM validator does (json.Unmarshal into a
 * list of PVCs): "" or null list nothing; otherwise it must be a JSON array whose entries are
 * objects (or null, skipped) of a PVC's shape (see wrongShape) with a non-empty metadata.name,
 * each with the raw text of its storage request (ClaimTemplate). `why` says what is wrong.
 */
export function parseVolumeClaimTemplates(
  text: string | undefined,
): { templates: ClaimTemplate[] } | { why: string } {
  if (!text) return { templates: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { why: `it is not valid JSON (${(error as Error).message.slice(0, 120)})` };
  }
  if (parsed === null) return { templates: [] };
  if (!Array.isArray(parsed)) return { why: 'it is not a JSON list' };
  const templates: Array<[number, PersistentVolumeClaim]> = [];
  for (const [index, entry] of parsed.entries()) {
    if (entry === null) continue;
    if (!isJsonObject(entry)) return { why: `entry ${index} is not a PVC object` };
    const shape = wrongShape(entry);
    if (shape) return { why: `entry ${index} ${shape}` };
    const name: unknown = (entry as PersistentVolumeClaim).metadata?.name;
    if (typeof name !== 'string' || name === '')
      return { why: `entry ${index} has no metadata.name (PVC name is required)` };
    templates.push([index, entry as PersistentVolumeClaim]);
  }
  return { templates: withStorageTokens(text, templates) };
}

/**
 * The PVC objects in the VM's volumeClaimTemplates annotation. Harvester writes the annotation
 * itself; an absent, empty or malformed one lists nothing here (as Harvester's index skips it);
 * the VM validator refuses a malformed new value (parseVolumeClaimTemplates).
 */
export function volumeClaimTemplatesOf(vm: VirtualMachine): PersistentVolumeClaim[] {
  return templateEntriesOf(vm)?.entries.map(([, entry]) => entry) ?? [];
}

/** volumeClaimTemplatesOf, each entry with the raw text of its storage request (ClaimTemplate). */
export function claimTemplatesOf(vm: VirtualMachine): ClaimTemplate[] {
  const found = templateEntriesOf(vm);
  if (!found) return [];
  return withStorageTokens(found.text, found.entries);
}

/** The annotation's text and its object entries with their indexes in the list; null when it lists nothing or is malformed. */
function templateEntriesOf(
  vm: VirtualMachine,
): { text: string; entries: Array<[number, PersistentVolumeClaim]> } | null {
  const text = vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
  if (!text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const entries = [...parsed.entries()].filter(
    (pair): pair is [number, PersistentVolumeClaim] =>
      pair[1] !== null && typeof pair[1] === 'object',
  );
  return { text, entries };
}

/** The PVC name a VM volume uses: persistentVolumeClaim.claimName or dataVolume.name (a DataVolume's PVC has its name). */
export function claimNameOf(volume: VmVolume): string | undefined {
  return volume.persistentVolumeClaim?.claimName ?? volume.dataVolume?.name;
}

/** The template volumes of the VM that use the PVC `name` (same namespace as the VM). */
export function vmVolumesUsing(vm: VirtualMachine, name: string): VmVolume[] {
  return (vm.spec?.template?.spec?.volumes ?? []).filter((volume) => claimNameOf(volume) === name);
}

/** True when the VM hotplugs the PVC `name` (persistentVolumeClaim or dataVolume hotpluggable: true). */
export function vmHotplugs(vm: VirtualMachine, name: string): boolean {
  return vmVolumesUsing(vm, name).some(
    (volume) =>
      volume.persistentVolumeClaim?.hotpluggable === true ||
      volume.dataVolume?.hotpluggable === true,
  );
}

/**
 * Every "namespace/name" PVC key the VM uses: template volumes and volumeClaimTemplates entries,
 * all in the VM's namespace. This is the index function for "VMs by PVC" caches.
 */
export function pvcKeysOfVm(vm: VirtualMachine): string[] {
  const namespace = vm.metadata?.namespace ?? '';
  const names = new Set<string>();
  for (const volume of vm.spec?.template?.spec?.volumes ?? []) {
    const name = claimNameOf(volume);
    if (name) names.add(name);
  }
  for (const template of volumeClaimTemplatesOf(vm)) {
    if (template.metadata?.name) names.add(template.metadata.name);
  }
  return [...names].map((name) => `${namespace}/${name}`);
}

/** True when the VM uses the PVC `namespace/name` (template volume or volumeClaimTemplates). */
export function vmUsesPvc(vm: VirtualMachine, namespace: string, name: string): boolean {
  return pvcKeysOfVm(vm).includes(`${namespace}/${name}`);
}

/**
 * Harvester's notion of a running VM: `status.printableStatus != "Stopped"`, so Starting,
 * Paused, Migrating, errors... and a VM with no printableStatus yet all count as running
 * (a VM nobody has reconciled may start any moment; refusing online rules is the safe side).
 */
export function isVmRunning(vm: VirtualMachine): boolean {
  return vm.status?.printableStatus !== 'Stopped';
}
