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

const BINARY_BITS: Record<string, bigint> = {
  Ki: 10n,
  Mi: 20n,
  Gi: 30n,
  Ti: 40n,
  Pi: 50n,
  Ei: 60n,
};
const DECIMAL_EXP: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
/**
 * voe's bound (apimachinery has none): a decimal value of 10^1000 or more in absolute value is
 * refused with KUBE_QUANTITY_OUT_OF_RANGE rather than computed, so that no input makes voe build
 * a bigint of more than about 3,400 bits (no storage comes near: 1e21 bytes is a zettabyte).
 * Binary-suffix values never reach it: apimachinery caps them at 2^63-1.
 */
export const MAX_QUANTITY_DIGITS = 1000;
/**
 * Written exponents (e<n>, after Go's int32 truncation) beyond +-2^30 are refused with
 * KUBE_QUANTITY_OUT_OF_RANGE too: near +-2^31 apimachinery's own scale arithmetic wraps and its
 * String() does not finish, so there is no behaviour to follow. Within it every value is exact.
 */
const MAX_EXPONENT = 2 ** 30;
/** apimachinery caps binary-suffix (Ki..Ei) values at this magnitude (resource.maxAllowed). */
export const MAX_BINARY_QUANTITY = 2n ** 63n - 1n;
const NANO = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

function invalid(input: unknown, why: string): KubeError {
  // Quoted in messages users see (admission refusals): at most 80 characters of it.
  return new KubeError(
    KubeErrorCode.QuantityInvalid,
    `invalid Kubernetes quantity ${excerpt(input)}: ${why}; use e.g. "10Gi", "512Mi", "1.5Gi", "1e9" or "500M"`,
    {
      details: {
        input:
          typeof input === 'string' && input.length > 1024 ? `${input.slice(0, 1024)}…` : input,
      },
    },
  );
}

function outOfRange(input: string, why: string): KubeError {
  return new KubeError(
    KubeErrorCode.QuantityOutOfRange,
    `Kubernetes quantity ${excerpt(input)} ${why}, beyond what voe reads (no storage comes near it); write a size such as "20Gi" or "2Ti"`,
    { details: { input: input.length > 1024 ? `${input.slice(0, 1024)}…` : input } },
  );
}

/**
 * Values of recently parsed quantities: the webhook parses the same few sizes ("10Gi", "20Gi")
 * for every review, and the bigint arithmetic below costs a quarter of a resize decision
 * (bench/webhook.bench.ts). Bounded: cleared when full. Its values are frozen, as every caller
 * shares them.
 */
const RECENT = new Map<string, QuantityValue>();
const RECENT_MAX = 1024;

/**
 * Parses a quantity into its exact rational value (frozen), as apimachinery's ParseQuantity
 * stores it: the grammar `<sign>?<digits>[.<digits>]<suffix>` (at least one digit; Go also reads
 * digit-less forms such as "." or "e3" as 0, voe refuses them), the value rounded up, away from
 * zero, to a whole number of nano units (1e-9: "1.0000000001" is 1.000000001), a binary-suffix
 * value capped at 2^63-1 in absolute value ("9Ei" is 9223372036854775807), an e<n> exponent read as
 * Go's int64 then truncated to int32 ("1e4294967296" is 1). Throws KUBE_QUANTITY_INVALID for what
 * apimachinery refuses, KUBE_QUANTITY_OUT_OF_RANGE beyond voe's bounds (MAX_QUANTITY_DIGITS,
 * exponents beyond +-2^30).
 */
export function parseQuantityValue(input: string): QuantityValue {
  if (typeof input !== 'string') throw invalid(input, 'not a string');
  const known = RECENT.get(input);
  if (known) return known;
  const value = Object.freeze(parseUncached(input));
  if (RECENT.size >= RECENT_MAX) RECENT.clear();
  RECENT.set(input, value);
  return value;
}

/** The e<n> exponent as apimachinery reads it: strconv.ParseInt(n, 10, 64), then int32(n). */
function exponentOf(input: string, text: string): number {
  const digits = text.replace(/^[+-]?0*/, '');
  if (digits.length > 19) throw invalid(input, 'exponent beyond a 64-bit integer');
  const parsed = BigInt(text);
  if (parsed > INT64_MAX || parsed < -INT64_MAX - 1n)
    throw invalid(input, 'exponent beyond a 64-bit integer');
  const exponent = Number(BigInt.asIntN(32, parsed));
  if (Math.abs(exponent) > MAX_EXPONENT) throw outOfRange(input, 'has an exponent beyond +-2^30');
  return exponent;
}

function parseUncached(input: string): QuantityValue {
  const m = QUANTITY_RE.exec(input);
  if (!m || (m[2] ?? '') + (m[3] ?? '') === '') {
    throw invalid(
      input,
      input === '' ? 'empty string' : m ? 'no digits' : 'does not match <number><suffix>',
    );
  }
  const negative = m[1] === '-';
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  const suffix = m[4] ?? '';
  const bits = BINARY_BITS[suffix] ?? 0n;
  let exp10 =
    suffix in BINARY_BITS
      ? 0
      : suffix in DECIMAL_EXP
        ? (DECIMAL_EXP[suffix] as number)
        : exponentOf(input, suffix.slice(1));
  // value = sig x 10^exp10 x 2^bits, sig without leading or trailing zeros (cheap: no bigint yet).
  let sig = (intPart + fracPart).replace(/^0+/, '');
  if (sig === '') return { num: 0n, den: 1n };
  exp10 -= fracPart.length;
  let end = sig.length; // a loop, not /0+$/: that regex is quadratic on long inner runs of zeros
  while (sig.charCodeAt(end - 1) === 48) end--;
  const trailing = sig.length - end;
  sig = sig.slice(0, end);
  exp10 += trailing;
  const intDigits = sig.length + exp10; // digits before the point of sig x 10^exp10
  let num: bigint;
  let den = 1n;
  if (bits > 0n && intDigits > 20) {
    num = MAX_BINARY_QUANTITY; // >= 10^20 > 2^63 before the binary factor
  } else {
    if (intDigits > MAX_QUANTITY_DIGITS)
      throw outOfRange(input, `is 1e${MAX_QUANTITY_DIGITS} or more in absolute value`);
    if (exp10 >= 0) {
      num = (BigInt(sig) * 10n ** BigInt(exp10)) << bits;
    } else {
      // Round up to nano units. Digits more than 9 + bits places after the point cannot move the
      // result by a whole unit once multiplied by 2^bits (the nano grid of the kept digits x 2^bits is
      // finer than what they add), so they count only as "not zero": sig's last digit never is.
      const places = -exp10;
      const keep = 9 + Number(bits);
      const dropped = Math.max(0, places - keep);
      const kept = dropped >= sig.length ? 0n : BigInt(sig.slice(0, sig.length - dropped));
      const scaled = kept << bits; // x 10^-(places - dropped)
      const shift = places - dropped - 9;
      if (shift <= 0 && dropped === 0) {
        num = scaled;
        den = 10n ** BigInt(places);
      } else {
        const divisor = 10n ** BigInt(Math.max(shift, 0));
        const whole = scaled * 10n ** BigInt(Math.max(-shift, 0));
        num = whole / divisor + (whole % divisor !== 0n || dropped > 0 ? 1n : 0n);
        den = NANO;
      }
    }
    if (bits > 0n && num > MAX_BINARY_QUANTITY * den) {
      num = MAX_BINARY_QUANTITY;
      den = 1n;
    }
  }
  return reduce(negative ? -num : num, den);
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
    throw new KubeError(
      KubeErrorCode.QuantityFractional,
      `quantity ${JSON.stringify(input)} is not a whole number of units; give whole bytes such as "10Gi" or "1536Mi"`,
      { details: { input } },
    );
  }
  return v.num;
}

/**
 * The whole number Kubernetes' `Quantity.Value()` gives: the value rounded up, away from zero
 * ('1500m' is 2, '-1500m' is -2). Unlike Value(), it does not wrap around beyond int64: a decimal
 * quantity of 2^63 or more ('1e19') is returned as it is, where Value() returns a wrapped number
 * (binary-suffix values never get there: parseQuantityValue caps them at 2^63-1).
 */
export function parseQuantityCeil(input: string): bigint {
  const { num, den } = parseQuantityValue(input);
  const q = num / den;
  if (num % den === 0n) return q;
  return num > 0n ? q + 1n : q - 1n;
}

function valueOf(q: string | bigint | QuantityValue): QuantityValue {
  if (typeof q === 'bigint') return { num: q, den: 1n };
  if (typeof q === 'string') return parseQuantityValue(q);
  return q;
}

/** Exact comparison: -1 when a < b, 0 when equal ('1Gi' vs '1024Mi'), 1 when a > b. */
export function compareQuantities(
  a: string | bigint | QuantityValue,
  b: string | bigint | QuantityValue,
): -1 | 0 | 1 {
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
 * when |bytes| < 1024 or when no suffix divides exactly ('1025'), and when |bytes| >= 2^63, which
 * apimachinery would read capped at 2^63-1 with a binary suffix.
 */
export function formatBytes(bytes: bigint): string {
  if (typeof bytes !== 'bigint') throw invalid(bytes, 'formatBytes takes a bigint');
  const neg = bytes < 0n;
  let abs = neg ? -bytes : bytes;
  let i = 0;
  if (abs >= 1024n && abs <= MAX_BINARY_QUANTITY) {
    while (i < BINARY_SUFFIXES.length - 1 && abs % 1024n === 0n) {
      abs /= 1024n;
      i++;
    }
  }
  return `${neg ? '-' : ''}${abs}${BINARY_SUFFIXES[i]}`;
}

/**
 * apimachinery's `Quantity.RoundUp(-3)`: the value rounded up, away from zero, to a whole number
 * of milli units. The API server applies it to every PVC ResourceList it stores
 * (SetDefaults_ResourceList): a request of "10737418240.0001" is stored as "10737418240001m".
 */
export function roundUpToMilli(value: QuantityValue): QuantityValue {
  const scaled = value.num * 1000n;
  const whole = scaled / value.den;
  const rest = scaled % value.den;
  return reduce(rest === 0n ? whole : value.num > 0n ? whole + 1n : whole - 1n, 1000n);
}

/**
 * A quantity text for a value that is a whole number of nano units (what parseQuantityValue
 * returns): plain digits when whole, else with the m, u or n suffix that makes it whole
 * ('1.5' is "1500m"). parseQuantityValue reads it back as the same value.
 */
export function formatQuantityValue(value: QuantityValue): string {
  for (const [suffix, per] of [
    ['', 1n],
    ['m', 1000n],
    ['u', 1_000_000n],
    ['n', NANO],
  ] as const) {
    if ((value.num * per) % value.den === 0n) return `${(value.num * per) / value.den}${suffix}`;
  }
  throw invalid(`${value.num}/${value.den}`, 'not a whole number of nano units');
}
