import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { parseAuxvPageSize } from '../parse/parse-auxv-page-size.js';

/** What resize2fs assumes when sysconf cannot tell (e2fsprogs resize/main.c: `sys_page_size = 4096`). */
export const DEFAULT_PAGE_SIZE = 4096;

/** Node's process.arch values of 64-bit processes (their auxv words are 8 bytes). */
const ARCH_64 = new Set([
  'arm64',
  'loong64',
  'mips64',
  'mips64el',
  'ppc64',
  'riscv64',
  's390x',
  'x64',
]);

/**
 * The system page size, which resize2fs takes from sysconf(_SC_PAGESIZE) (glibc reads it from
 * the same auxiliary vector), read without starting a process: AT_PAGESZ in /proc/self/auxv.
 * DEFAULT_PAGE_SIZE when it cannot be read.
 */
export function systemPageSize(): number {
  let auxv: Buffer;
  try {
    auxv = readFileSync('/proc/self/auxv');
  } catch {
    return DEFAULT_PAGE_SIZE;
  }
  return (
    parseAuxvPageSize(auxv, ARCH_64.has(process.arch) ? 8 : 4, endianness() === 'LE') ??
    DEFAULT_PAGE_SIZE
  );
}
