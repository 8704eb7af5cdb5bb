import { QuantityInvalidError } from './quantity-invalid-error.js';

/*
 * A minimal, exact parser for Kubernetes resource quantities (the grammar of
 * k8s.io/apimachinery resource.Quantity), local to the admission code until src/kube
 * provides a shared parseQuantity.
 */
const QUANTITY = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/**
 * The integer value of a quantity, rounded up like resource.Quantity.Value()
 * (e.g. "20Gi" -> 21474836480n, "1.5k" -> 1500n, "100m" -> 1n). Throws QuantityInvalidError.
 */
export function parseQuantity(text: string): bigint {
  const match = QUANTITY.exec(text.trim());
  const whole = match?.[2] ?? '';
  const fraction = match?.[3] ?? '';
  if (!match || (whole === '' && fraction === '')) throw new QuantityInvalidError(text);
  const negative = match[1] === '-';
  const suffix = match[4];
  const exponentText = match[5];

  let numerator = BigInt(whole + fraction || '0');
  let denominator = 10n ** BigInt(fraction.length);
  let exponent = 0;
  if (suffix !== undefined && BINARY[suffix] !== undefined) numerator *= BINARY[suffix];
  else if (suffix !== undefined) exponent = DECIMAL[suffix] ?? 0;
  else if (exponentText !== undefined) {
    exponent = Number(exponentText);
    if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 1000) throw new QuantityInvalidError(text);
  }
  if (exponent > 0) numerator *= 10n ** BigInt(exponent);
  if (exponent < 0) denominator *= 10n ** BigInt(-exponent);

  const quotient = numerator / denominator;
  const rounded = numerator % denominator === 0n ? quotient : quotient + 1n;
  return negative ? -(numerator / denominator) : rounded;
}

/** The storage request of an object's `resources.requests`, or undefined when absent. */
export function storageRequest(requests: Record<string, unknown> | undefined): bigint | undefined {
  const raw = requests?.['storage'];
  if (raw === undefined || raw === null) return undefined;
  return parseQuantity(String(raw));
}
