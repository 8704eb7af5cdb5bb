const MIB = 1024n * 1024n;

/** CDI's default filesystem overhead, which KubeVirt uses when it finds no single CDI CR (docs/tracker.md "Upstream facts"). */
export const DEFAULT_FILESYSTEM_OVERHEAD = '0.055';

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A decimal fraction text (CDI writes e.g. "0.055") as numerator/denominator; undefined unless 0 <= value < 1. */
export function parseOverhead(text: string): { num: bigint; den: bigint } | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  const den = 10n ** BigInt(fraction.length);
  const num = BigInt(match[1]!) * den + BigInt(fraction === '' ? '0' : fraction);
  return num < den ? { num, den } : undefined;
}

/**
 * The size the guest should see once KubeVirt grew the disk (design.md "The expansion
 * lifecycle"): KubeVirt's target is min(request, capacity) of the PVC; a Block volume is the
 * device, so the guest sees that; a Filesystem volume holds disk.img, grown to
 * floor_1MiB((1 - filesystemOverhead) x target). An overhead that is not a fraction below 1
 * counts as the default. Pure.
 */
export function expectedGuestBytes(options: {
  volumeMode: string | undefined;
  request: bigint;
  capacity: bigint;
  filesystemOverhead: string | undefined;
}): bigint {
  const target = options.request < options.capacity ? options.request : options.capacity;
  if (options.volumeMode === 'Block') return target;
  const overhead =
    parseOverhead(options.filesystemOverhead ?? DEFAULT_FILESYSTEM_OVERHEAD) ??
    parseOverhead(DEFAULT_FILESYSTEM_OVERHEAD)!;
  const usable = (target * (overhead.den - overhead.num)) / overhead.den;
  return (usable / MIB) * MIB;
}
