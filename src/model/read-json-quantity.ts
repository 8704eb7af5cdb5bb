import {
  isKubeError,
  KubeError,
  KubeErrorCode,
  parseQuantityValue,
  type QuantityValue,
} from '../kube/index.js';

/**
 * Go's unicode.IsSpace: what strings.TrimSpace removes. JavaScript's trim() differs: it also
 * removes U+FEFF and keeps U+0085.
 */
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;

/** Go's strings.TrimSpace (loops from both ends: a /[...]+$/ regex is quadratic on long inner runs of spaces). */
export function goTrimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && GO_SPACE.test(text[start]!)) start++;
  while (end > start && GO_SPACE.test(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** A quantity read from JSON text: the text apimachinery's ParseQuantity gets, and its value. */
export interface JsonQuantity {
  text: string;
  value: QuantityValue;
}

function refused(raw: string, why: string): KubeError {
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return new KubeError(KubeErrorCode.QuantityInvalid, `the size ${shown} ${why}`, {
    details: { input: raw.length > 1024 ? `${raw.slice(0, 1024)}…` : raw },
  });
}

/** Characters no quantity holds, named as U+XXXX (at most three). */
function strangeCharacters(text: string): string[] {
  const strange = [...new Set([...text].filter((c) => !/^[0-9A-Za-z+.-]$/.test(c)))];
  return strange
    .slice(0, 3)
    .map(
      (c) =>
        `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}${c === ' ' ? ' (space)' : ''}`,
    );
}

/**
 * Reads a quantity from the raw text of a JSON value as apimachinery's Quantity.UnmarshalJSON
 * does (and so the API server, and Harvester's json.Unmarshal of a volumeClaimTemplates
 * annotation): `null` is no value (undefined); a string's quotes are stripped WITHOUT decoding its
 * escapes; a number's text is taken as it is (exactly: `10737418240.000000000001` is not 10Gi);
 * then Go's strings.TrimSpace and ParseQuantity (parseQuantityValue). So `"\t20Gi"` and
 * `"\u0032\u0030Gi"` (escapes) are refused, while a literal tab or no-break space around the size is
 * ignored. Throws KubeError KUBE_QUANTITY_INVALID saying what is wrong and what to write, or
 * KUBE_QUANTITY_OUT_OF_RANGE.
 */
export function readJsonQuantity(raw: string): JsonQuantity | undefined {
  if (raw === 'null') return undefined;
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  if (!quoted && /^[{[tf]/.test(raw)) {
    const kind = raw.startsWith('{') ? 'an object' : raw.startsWith('[') ? 'a list' : 'a boolean';
    throw refused(raw, `is ${kind}, not a quantity; write it as a string such as "20Gi"`);
  }
  const text = goTrimSpace(quoted ? raw.slice(1, -1) : raw);
  if (text.includes('\\')) {
    throw refused(
      raw,
      "contains a JSON escape sequence (such as \\t or \\u0032): Kubernetes and Harvester read a size's JSON text " +
        'without decoding escapes, so they cannot read it; write the size in plain characters, e.g. "20Gi"',
    );
  }
  try {
    return { text, value: parseQuantityValue(text) };
  } catch (error) {
    if (!isKubeError(error, KubeErrorCode.QuantityInvalid)) throw error;
    const strange = strangeCharacters(text);
    if (strange.length > 0) {
      throw refused(
        raw,
        `contains characters a Kubernetes quantity cannot hold (${strange.join(', ')}), which Kubernetes and Harvester ` +
          'cannot read; write the size with digits and a suffix only, e.g. "20Gi"',
      );
    }
    throw error;
  }
}
