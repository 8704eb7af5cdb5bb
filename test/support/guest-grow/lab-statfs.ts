import type { LabVm } from '../../../src/demo/index.js';
import { labGuestOutput } from './lab-guest-commands.js';

/** statfs of a mount point in the guest (what df shows): its total bytes. */
export async function labStatfsBytes(vm: LabVm, mountPoint: string): Promise<number> {
  const [blocks, blockBytes] = (
    await labGuestOutput(vm, { argv: ['stat', '-f', '-c', '%b %S', mountPoint] })
  )
    .trim()
    .split(' ')
    .map(Number);
  return blocks! * blockBytes!;
}
