import { readFile } from 'node:fs/promises';
import { sh } from '../fsresize/loop-device.js';

/** Unescapes a mountinfo path field (octal escapes of space, tab, newline, backslash). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

/**
 * Unmounts every mount point at or below `dir` (deepest first): what a driver process mounted for
 * the test's kubelet and did not unmount because a test failed half-way.
 */
export async function unmountUnder(dir: string): Promise<void> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  const points = text
    .split('\n')
    .map((line) => unescape(line.split(' ')[4] ?? ''))
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) await sh('umount', ['--lazy', point]).catch(() => undefined);
}
