import { shellQuote } from '../../shell/index.js';
import type { GuestStep } from '../model/guest-growth-plan.js';

/** What a step's standard input becomes on a command line: printf of its lines, piped in. */
function stdinPipe(stdin: string): string {
  if (!stdin.endsWith('\n')) return `printf %s ${shellQuote(stdin)} | `;
  const lines = stdin.slice(0, -1).split('\n');
  return `printf '%s\\n' ${lines.map(shellQuote).join(' ')} | `;
}

/**
 * A plan's steps as the lines a user types in that guest to do the same by hand, in order:
 * in a Linux guest's POSIX shell (sh, bash), each argument quoted (shellQuote) and a step's
 * standard input given by printf through a pipe (`printf '%s\n' ', +' | sfdisk ...`); in a
 * Windows guest, the PowerShell command itself (what `powershell.exe -Command` is given), for
 * a PowerShell prompt. Empty when the plan has no steps. Pure.
 */
export function renderGuestCommands(plan: {
  guest: 'linux' | 'windows';
  steps: readonly GuestStep[];
}): string[] {
  return plan.steps.map((step) => {
    if (plan.guest === 'windows') {
      const command = step.argv.indexOf('-Command');
      return command >= 0 ? step.argv.slice(command + 1).join(' ') : step.argv.join(' ');
    }
    const line = step.argv.map(shellQuote).join(' ');
    return step.stdin === undefined ? line : `${stdinPipe(step.stdin)}${line}`;
  });
}
