import { excerpt } from '../errors/index.js';
import { KubeError, KubeErrorCode } from './kube-error.js';

/**
 * Exact Kubernetes quantity arithmetic on bigint (resource.Quantity grammar:
 * `<sign>?<digits>[.<digits>]<suffix>` with suffix in Ki..Ei, n u m "" k M G T P E, or e<int>).
 *
 * Why not client-node's `quantityToScalar`: in 1.4.0 it is not exported from the package
 * index (only from dist/util.js), throws a SyntaxError on fractions with a suffix ('1.5Gi'),
 * returns an imprecise Number for suffix-less values above 2^53 ('12345678901234567891'),
 * and a float for 'm'. Storage needs exact bytes, so we parse the grammar ourselves.
 */

/** An exact rational value num/den (den > 0, a power of ten). */
export interface QuantityValue {
  num: bigint;
  den: bigint;
}

const BINARY: Record<string, bigint> = {
  Ki: 1024n, Mi: 1024n ** 2n, Gi: 1024n ** 3n, Ti: 1024n ** 4n, Pi: 1024n ** 5n, Ei: 1024n ** 6n,
};
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
const MAX_EXPONENT = 100;
const QUANTITY_RE = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

function invalid(input: unknown, why: string): KubeError {
  // Quoted in messages users see (admission refusals): at most 80 characters of it.
  return new KubeError(KubeErrorCode.QuantityInvalid,
    `invalid Kubernetes quantity ${excerpt(input)}: ${why}; use e.g. "10Gi", "512Mi", "1.5Gi", "1e9" or "500M"`,
    { details: { input: typeof input === 'string' && input.length > 1024 ? `${input.slice(0, 1024)}…` : input } });
}

/**
 * Values of recently parsed quantities: the webhook parses the same few sizes ("10Gi", "20Gi")
 * for every review, and the bigint arithmetic below costs a quarter of a resize decision
 * (bench/webhook.bench.ts). Bounded: cleared when full. Its values are frozen, as every caller
 * shares them.
 */
const RECENT = new Map<string, QuantityValue>();
const RECENT_MAX = 1024;

/** Parses a quantity into an exact rational value (frozen). Throws KUBE_QUANTITY_INVALID. */
export function parseQuantityValue(input: string): QuantityValue {
  if (typeof input !== 'string') throw invalid(input, 'not a string');
  const known = RECENT.get(input);
  if (known) return known;
  const value = Object.freeze(parseUncached(input));
  if (RECENT.size >= RECENT_MAX) RECENT.clear();
  RECENT.set(input, value);
  return value;
}

function parseUncached(input: string): QuantityValue {
  const m = QUANTITY_RE.exec(input);
  if (!m) throw invalid(input, input === '' ? 'empty string' : 'does not match <number><suffix>');
  const sign = m[1] === '-' ? -1n : 1n;
  const mantissa = m[2] ?? '';
  const suffix = m[3] ?? '';
  const [intPart = '', fracPart = ''] = mantissa.split('.');
  let num = BigInt((intPart === '' ? '0' : intPart) + fracPart) * sign;
  let den = 10n ** BigInt(fracPart.length);
  let exp10 = 0;
  if (suffix in BINARY) {
    num *= BINARY[suffix] as bigint;
  } else if (suffix in DECIMAL_EXP) {
    exp10 = DECIMAL_EXP[suffix] as number;
  } else {
    exp10 = Number(suffix.slice(1));
    if (!Number.isSafeInteger(exp10) || Math.abs(exp10) > MAX_EXPONENT) throw invalid(input, `exponent out of range (|e| <= ${MAX_EXPONENT})`);
  }
  if (exp10 > 0) num *= 10n ** BigInt(exp10);
  else if (exp10 < 0) den *= 10n ** BigInt(-exp10);
  return reduce(num, den);
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce(num: bigint, den: bigint): QuantityValue {
  if (num === 0n) return { num: 0n, den: 1n };
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/**
 * Parses a quantity that must be a whole number (bytes): `parseQuantity('10Gi') === 10737418240n`,
 * `parseQuantity('1.5Gi') === 1610612736n`, `parseQuantity('1e3') === 1000n`.
 * Throws KUBE_QUANTITY_INVALID for bad syntax and KUBE_QUANTITY_FRACTIONAL for e.g. '100m' or '1.5'.
 */
export function parseQuantity(input: string): bigint {
  const v = parseQuantityValue(input);
  if (v.den !== 1n) {
    throw new KubeError(KubeErrorCode.QuantityFractional,
      `quantity ${JSON.stringify(input)} is not a whole number of units; give whole bytes such as "10Gi" or "1536Mi"`,
      { details: { input } });
  }
  return v.num;
}

/** Kubernetes `Quantity.Value()` semantics: rounds a fractional value up (away from zero for positives). */
export function parseQuantityCeil(input: string): bigint {
  const { num, den } = parseQuantityValue(input);
  const q = num / den;
  return num % den !== 0n && num > 0n ? q + 1n : q;
}

function valueOf(q: string | bigint | QuantityValue): QuantityValue {
  if (typeof q === 'bigint') return { num: q, den: 1n };
  if (typeof q === 'string') return parseQuantityValue(q);
  return q;
}

/** Exact comparison: -1 when a < b, 0 when equal ('1Gi' vs '1024Mi'), 1 when a > b. */
export function compareQuantities(a: string | bigint | QuantityValue, b: string | bigint | QuantityValue): -1 | 0 | 1 {
  const x = valueOf(a);
  const y = valueOf(b);
  const l = x.num * y.den;
  const r = y.num * x.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function quantityEquals(a: string | bigint, b: string | bigint): boolean {
  return compareQuantities(a, b) === 0;
}

/**
 * Canonical binary-SI text for a byte count, as Kubernetes prints BinarySI quantities:
 * the largest power-of-1024 suffix that divides exactly ('10Gi', '1536Mi'); plain digits
 * when |bytes| < 1024 or when no suffix divides exactly ('1025').
 */
export function formatBytes(bytes: bigint): string {
  if (typeof bytes !== 'bigint') throw invalid(bytes, 'formatBytes takes a bigint');
  const neg = bytes < 0n;
  let abs = neg ? -bytes : bytes;
  let i = 0;
  if (abs >= 1024n) {
    while (i < BINARY_SUFFIXES.length - 1 && abs % 1024n === 0n) {
      abs /= 1024n;
      i++;
    }
  }
  return `${neg ? '-' : ''}${abs}${BINARY_SUFFIXES[i]}`;
}
