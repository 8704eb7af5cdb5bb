import { compareQuantities, formatQuantityValue, roundUpToMilli } from '../kube/index.js';
import { readJsonQuantity } from '../model/index.js';

/**
 * The size `voe check --size SIZE` judges, as the API server would store it: SIZE carried as a
 * JSON string in a patch, as the API server re-encodes it after merging (JSON.stringify(SIZE),
 * with U+2028 and U+2029 escaped as Go's encoding/json writes them: tested against a real API
 * server), read by readJsonQuantity, the function the VM path reads annotation sizes with (so Go's
 * white space around it is ignored, a byte order mark or a control character is not, nor U+2028
 * and U+2029, which arrive escaped), then rounded up to milli units as the API server stores
 * every PVC request (SetDefaults_ResourceList: `10737418239.9999` is stored as 10Gi). Returns the
 * text to judge: SIZE trimmed when the rounding keeps its value, else the stored value
 * (formatQuantityValue). Throws KubeError KUBE_QUANTITY_INVALID or KUBE_QUANTITY_OUT_OF_RANGE.
 */
export function readCheckSize(size: string): string {
  const read = readJsonQuantity(
    JSON.stringify(size).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`),
  );
  if (!read) throw new Error('unreachable: a JSON string is never null');
  const stored = roundUpToMilli(read.value);
  return compareQuantities(stored, read.value) === 0 ? read.text : formatQuantityValue(stored);
}
