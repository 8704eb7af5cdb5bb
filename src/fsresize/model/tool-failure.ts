import type { CommandResult } from './command-runner.js';
import { fsckExitText } from './fsck-exit-meaning.js';
import { FsResizeError } from './fsresize-error.js';
import type { PrecheckRan } from './inspection.js';

const PERMISSION_PATTERN = /permission denied|operation not permitted|\beperm\b/i;
/** resize2fs and e2fsck open an unmounted device exclusively; this is what they say when that fails. */
const BUSY_PATTERN = /device or resource busy|\bis in use\b/i;
const BUSY_HINT =
  ' — is it mounted in another mount namespace (e.g. a container)? voe sees only the mounts of its own namespace (/proc/self/mountinfo) and took it for unmounted: grow it where it is mounted';

/** Whether a command only reads (an inspection: blkid, blockdev, xfs_io statfs, btrfs inspect-internal); the others change the filesystem. */
function isProbe(tool: string, args: readonly string[]): boolean {
  return (
    tool === 'blkid' ||
    tool === 'blockdev' ||
    tool === 'xfs_io' ||
    (tool === 'btrfs' && args[0] === 'inspect-internal')
  );
}

function lastLines(result: CommandResult): string {
  return (result.stderr.trim() || result.stdout.trim())
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-3)
    .join(' / ');
}

/**
 * The typed error for a tool that exited non-zero: FSRESIZE_PERMISSION_DENIED when the tool
 * says it lacked a permission (e.g. ext4 online resize without CAP_SYS_RESOURCE), otherwise
 * FSRESIZE_TOOL_FAILED (with a hint when the device was busy: mounted where voe cannot see it). Both
 * carry the tool's stderr.
 */
export function toolFailure(
  tool: string,
  args: readonly string[],
  result: CommandResult,
  doing: string,
  precheck?: PrecheckRan,
): FsResizeError {
  const said = lastLines(result);
  const report = {
    tool,
    args: [...args],
    exitCode: result.exitCode,
    signal: null,
    stderr: result.stderr,
  };
  const command = `${tool} ${args.join(' ')}`;
  // A check that ran first may have written fixes (exit 1, errors corrected): the error says it ran, and so.
  const fixes = precheck?.exitCode === 1 ? ' and its fixes are written' : '';
  const checked = precheck
    ? `; ${precheck.command.join(' ')} ran first (${fsckExitText(precheck.exitCode)})${fixes}`
    : '';
  const extra = precheck ? { details: { precheck } } : {};
  if (PERMISSION_PATTERN.test(result.stderr)) {
    // A probe only reads: what it lacked is the right to open the device, not a capability to resize.
    const advice = isProbe(tool, args)
      ? 'it needs to read the device: run voe as root (or as a user that may read the device)'
      : 'it needs root with CAP_SYS_ADMIN and, for ext4 online resize, CAP_SYS_RESOURCE — run it where the process has these capabilities, or grow the filesystem while unmounted';
    return new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `${doing} failed: ${command} was refused by the kernel (${said}); ${advice}${checked}`,
      { tool: report, ...extra },
    );
  }
  // e2fsck says "<device> is in use." on stdout and only "Cannot continue, aborting." on stderr.
  const busyLine = `${result.stderr}\n${result.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .find((l) => BUSY_PATTERN.test(l));
  const told =
    busyLine !== undefined && !said.includes(busyLine)
      ? [busyLine, said].filter(Boolean).join(' / ')
      : said;
  return new FsResizeError(
    'FSRESIZE_TOOL_FAILED',
    `${doing} failed: ${command} exited with ${result.exitCode}${told ? ` (${told})` : ''}${busyLine !== undefined ? BUSY_HINT : '; fix what the tool reports and retry'}${checked}`,
    { tool: report, ...extra },
  );
}

/**
 * The typed error for a filesystem check (e2fsck -f -p) that found problems preen mode does not
 * fix by itself: FSRESIZE_FSCK_FAILED with the checker's output. Nothing was grown.
 */
export function fsckFailure(
  tool: string,
  args: readonly string[],
  result: CommandResult,
  doing: string,
): FsResizeError {
  if (result.exitCode === null || result.exitCode >= 8)
    return toolFailure(tool, args, result, doing);
  const device = args[args.length - 1] ?? '';
  return new FsResizeError(
    'FSRESIZE_FSCK_FAILED',
    `${doing} failed: ${tool} ${args.join(' ')} exited with ${result.exitCode} (${lastLines(result) || 'no output'}); the filesystem has problems that need a person — run '${tool} -f ${device}' by hand, then grow again. Nothing was grown`,
    {
      tool: {
        tool,
        args: [...args],
        exitCode: result.exitCode,
        signal: null,
        stderr: result.stderr || result.stdout,
      },
    },
  );
}
