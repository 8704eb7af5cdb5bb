import { CsiError } from '../errors/csi-error.js';
import type { CapacityRangeMessage } from '../proto/csi-messages.js';

/** A capacity range in bytes; 0n means unset (as in the spec). */
export interface CapacityRange {
  requiredBytes: bigint;
  limitBytes: bigint;
}

function bytesOf(text: string | number | undefined, field: string): bigint {
  if (text === undefined || text === '') return 0n;
  const value = typeof text === 'number' ? BigInt(text) : /^-?\d+$/.test(text) ? BigInt(text) : NaN;
  if (typeof value !== 'bigint')
    throw new CsiError('CSI_INVALID_ARGUMENT', `${field} must be a number of bytes`);
  if (value < 0n) throw new CsiError('CSI_INVALID_ARGUMENT', `${field} must not be negative`);
  return value;
}

/**
 * Reads a CapacityRange (absent: both 0). Throws CSI_INVALID_ARGUMENT for negative values and a
 * limit below the required size.
 */
export function readCapacityRange(
  message: CapacityRangeMessage | null | undefined,
  field = 'capacity_range',
): CapacityRange {
  const requiredBytes = bytesOf(message?.required_bytes, `${field}.required_bytes`);
  const limitBytes = bytesOf(message?.limit_bytes, `${field}.limit_bytes`);
  if (limitBytes !== 0n && requiredBytes > limitBytes)
    throw new CsiError(
      'CSI_INVALID_ARGUMENT',
      `${field}: required_bytes ${requiredBytes} is above limit_bytes ${limitBytes}`,
    );
  return { requiredBytes, limitBytes };
}

/** `bytes` rounded up to a whole multiple of `unit`. */
export function roundUp(bytes: bigint, unit: bigint): bigint {
  return ((bytes + unit - 1n) / unit) * unit;
}
