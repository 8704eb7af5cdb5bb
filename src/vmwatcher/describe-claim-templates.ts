import { isJsonObject } from '../errors/index.js';

/**
 * What is wrong with a VM's harvesterhci.io/volumeClaimTemplates annotation for the tracker,
 * which reads the PVC names in it: undefined when it can be read ("" and null list nothing);
 * else why (not JSON, not a list, an entry that is not an object or has no metadata.name).
 */
export function describeClaimTemplates(text: string): string | undefined {
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `it is not valid JSON (${(error as Error).message.slice(0, 120)})`;
  }
  if (parsed === null) return undefined;
  if (!Array.isArray(parsed)) return 'it is not a JSON list';
  for (const [index, entry] of parsed.entries()) {
    if (entry === null) continue;
    if (!isJsonObject(entry)) return `entry ${index} is not a PVC object`;
    const metadata = entry['metadata'];
    const name = isJsonObject(metadata) ? metadata['name'] : undefined;
    if (typeof name !== 'string' || name === '') return `entry ${index} has no metadata.name`;
  }
  return undefined;
}
