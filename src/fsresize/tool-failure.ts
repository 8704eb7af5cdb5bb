import type { CommandResult } from './command-runner.js';
import { FsResizeError } from './fsresize-error.js';

const PERMISSION_PATTERN = /permission denied|operation not permitted|\beperm\b/i;

/**
 * The typed error for a tool that exited non-zero: FSRESIZE_PERMISSION_DENIED when the tool
 * says it lacked a permission (e.g. ext4 online resize without CAP_SYS_RESOURCE), otherwise
 * FSRESIZE_TOOL_FAILED. Both carry the tool's stderr.
 */
export function toolFailure(tool: string, args: readonly string[], result: CommandResult, doing: string): FsResizeError {
  const said = (result.stderr.trim() || result.stdout.trim()).split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ');
  const report = { tool, args: [...args], exitCode: result.exitCode, signal: null, stderr: result.stderr };
  const command = `${tool} ${args.join(' ')}`;
  if (PERMISSION_PATTERN.test(result.stderr)) {
    return new FsResizeError('FSRESIZE_PERMISSION_DENIED',
      `${doing} failed: ${command} was refused by the kernel (${said}); it needs root with CAP_SYS_ADMIN and, for ext4 online resize, CAP_SYS_RESOURCE — run it where the process has these capabilities, or grow the filesystem while unmounted`,
      { tool: report });
  }
  return new FsResizeError('FSRESIZE_TOOL_FAILED',
    `${doing} failed: ${command} exited with ${result.exitCode}${said ? ` (${said})` : ''}; fix what the tool reports and retry`,
    { tool: report });
}
