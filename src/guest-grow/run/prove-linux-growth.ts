import type { GuestGrowthPlan, GuestLayout } from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { readFilesystemTotalBytes } from '../read/filesystem-total-bytes.js';
import type { GrowthProof } from './prove-windows-growth.js';

/** The mount point of the filesystem a Linux plan grows: its filesystem step's device, as lsblk shows it. */
export function grownMountPoint(plan: GuestGrowthPlan, layout: GuestLayout): string | undefined {
  if (plan.kind !== 'grow') return undefined;
  const of = plan.steps.find((step) => step.expect.reading === 'filesystem')?.expect.of;
  return layout.blockDevices.find((device) => device.name === of)?.mountPoint ?? undefined;
}

/**
 * The proof of a grown Linux run, to be read before the run (docs/guest-growth.md "Safe by
 * construction"): the grown mount point's guest-get-fsinfo total-bytes (what df shows) now, and a
 * prover that reads it again after the run. The prover answers the sizes, undefined when the agent
 * lists no size of the mount point or refuses guest-get-fsinfo (the steps' own readings then
 * stand), and rejects with GUESTRUN_SIZE_NOT_REACHED when the agent shows it no larger.
 */
export async function linuxGrowthProver(
  agent: GuestAgent,
  mountPoint: string | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<() => Promise<GrowthProof | undefined>> {
  const total = async (): Promise<number | undefined> =>
    mountPoint === undefined
      ? undefined
      : readFilesystemTotalBytes(agent, mountPoint, timeoutMs, signal).catch(() => undefined);
  const before = await total();
  return async () => {
    const after = await total();
    if (mountPoint === undefined || before === undefined || after === undefined) return undefined;
    if (after <= before)
      throw new GuestRunError(
        'GUESTRUN_SIZE_NOT_REACHED',
        `every step reached its size, but the guest agent's guest-get-fsinfo shows ${mountPoint} at ${after} bytes after the growth, not more than the ${before} bytes before: the guest's users do not see a larger filesystem; check it in the guest (df, and the filesystem's own tool)`,
        { details: { mountPoint } },
      );
    return { mountPoint, beforeBytes: BigInt(before), afterBytes: BigInt(after) };
  };
}
