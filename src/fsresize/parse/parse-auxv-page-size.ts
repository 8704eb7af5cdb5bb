/** The auxiliary vector entry that carries the page size (AT_PAGESZ, linux/auxvec.h) and the one that ends the vector (AT_NULL). */
const AT_PAGESZ = 6;
const AT_NULL = 0;

/**
 * The page size from the bytes of /proc/<pid>/auxv: pairs of (type, value) words of the process's
 * own word size (8 bytes for a 64-bit process, 4 for a 32-bit one) and byte order, ended by
 * AT_NULL. Null when there is no AT_PAGESZ entry or its value is not a power of two.
 */
export function parseAuxvPageSize(
  auxv: Uint8Array,
  wordBytes: 4 | 8,
  littleEndian: boolean,
): number | null {
  const view = new DataView(auxv.buffer, auxv.byteOffset, auxv.byteLength);
  const word = (offset: number): number =>
    wordBytes === 8
      ? Number(view.getBigUint64(offset, littleEndian))
      : view.getUint32(offset, littleEndian);
  for (let offset = 0; offset + 2 * wordBytes <= auxv.byteLength; offset += 2 * wordBytes) {
    const type = word(offset);
    if (type === AT_NULL) return null;
    if (type !== AT_PAGESZ) continue;
    const value = word(offset + wordBytes);
    return Number.isSafeInteger(value) && value > 0 && (value & (value - 1)) === 0 ? value : null;
  }
  return null;
}
