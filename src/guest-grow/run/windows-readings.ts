import type { GuestAgent } from '../guest-agent.js';
import { readWindowsLayout } from '../read/read-windows-layout.js';
import type { GuestReadings } from './run-guest-growth.js';

/** A Windows guest's readings of `disk`: Get-Partition's Size of the drive a step names (C:), read anew each time. */
export function windowsReadings(
  agent: GuestAgent,
  target: { disk: string; timeoutMs?: number },
): (signal?: AbortSignal) => Promise<GuestReadings> {
  return async (signal) => {
    const layout = await readWindowsLayout(agent, target, signal);
    return (check) =>
      check.reading === 'windows-partition'
        ? layout.partitions.find((p) => `${p.driveLetter}:` === check.of.toUpperCase())?.bytes
        : undefined;
  };
}
