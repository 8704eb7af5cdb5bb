import type { GuestAgent } from '../guest-agent.js';
import { readGuestLayout } from '../read/read-guest-layout.js';
import type { GuestReadings } from './run-guest-growth.js';
import { readingOf } from './reading-of.js';

/** A Linux guest's readings of `disk`: its layout read anew each time (readGuestLayout). */
export function linuxReadings(
  agent: GuestAgent,
  target: { disk: string; timeoutMs?: number },
): (signal?: AbortSignal) => Promise<GuestReadings> {
  return async (signal) => {
    const layout = await readGuestLayout(agent, target, signal);
    return (check) => readingOf(layout, check);
  };
}
