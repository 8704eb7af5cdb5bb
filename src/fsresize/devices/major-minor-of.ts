/** "major:minor" of a Linux dev_t (as stat's `rdev` gives it), with glibc's gnu_dev_major / gnu_dev_minor encoding. */
export function majorMinorOf(dev: number): string {
  const value = BigInt(dev);
  const major = ((value >> 8n) & 0xfffn) | ((value >> 32n) & ~0xfffn);
  const minor = (value & 0xffn) | ((value >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}
