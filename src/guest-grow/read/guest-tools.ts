import type { GuestAgent } from '../guest-agent.js';
import { readCommandOutput } from './read-command-output.js';

/** The tools a guest growth may run or read with: the plan's steps, and the layout's probes. */
export const GUEST_TOOLS = [
  'growpart',
  'sfdisk',
  'partx',
  'resizepart',
  'resize2fs',
  'xfs_growfs',
  'btrfs',
  'pvresize',
  'lvextend',
  'pvs',
  'dumpe2fs',
  'xfs_io',
  'getconf',
] as const;

/**
 * What finds them: the same text every time (the tools are its arguments, never put into it),
 * printing each one `command -v` finds on the agent's PATH, one a line; exit 0.
 */
export const GUEST_TOOLS_SCRIPT =
  'for t do if command -v "$t" >/dev/null 2>&1; then printf "%s\\n" "$t"; fi; done';

/** The tools of GUEST_TOOLS the guest has, as `command -v` in its /bin/sh finds them. */
export async function readGuestTools(
  agent: GuestAgent,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const stdout = await readCommandOutput(
    agent,
    ['/bin/sh', '-c', GUEST_TOOLS_SCRIPT, 'sh', ...GUEST_TOOLS],
    timeoutMs,
    signal,
  );
  const known = new Set<string>(GUEST_TOOLS);
  return new Set(
    stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((tool) => known.has(tool)),
  );
}
