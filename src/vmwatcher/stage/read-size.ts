import { parseQuantityCeil } from '../../kube/index.js';

/** A size read from an object: its text as written, and bytes when it is a quantity. */
export interface Size {
  text: string | undefined;
  bytes: bigint | undefined;
  malformed: boolean;
}

/** The `storage` entry of a resource list (requests, capacity, allocatedResources). Pure. */
export function readSize(record: Record<string, unknown> | undefined): Size {
  const raw = record?.['storage'];
  if (raw === undefined || raw === null)
    return { text: undefined, bytes: undefined, malformed: false };
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (typeof raw !== 'string' && typeof raw !== 'number')
    return { text, bytes: undefined, malformed: true };
  try {
    return { text, bytes: parseQuantityCeil(String(raw).trim()), malformed: false };
  } catch {
    return { text, bytes: undefined, malformed: true };
  }
}

/** A malformed size as a problem for the log; none when the size is fine. Pure. */
export function sizeProblems(where: string, size: Size): string[] {
  return size.malformed ? [`${where} is ${JSON.stringify(size.text)}, not a quantity`] : [];
}

/** Bytes for a message, "unknown" when not measured. */
export function bytesText(bytes: bigint | undefined): string {
  return bytes === undefined ? 'unknown' : String(bytes);
}
