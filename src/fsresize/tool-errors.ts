import { FsResizeError, type ToolReport } from './fsresize-error.js';

/** The typed errors of a tool the runner could not run to a normal end; every runner path uses these. */
export const toolErrors = {
  missing: (command: string, searchPath: string, cause: unknown, tool: ToolReport): FsResizeError => new FsResizeError('FSRESIZE_TOOL_MISSING',
    `${command} is not installed (looked in ${searchPath}); install it on this node (e2fsprogs, xfsprogs, btrfs-progs or util-linux) and retry`, { cause, tool }),
  notExecutable: (command: string, code: string, cause: unknown, tool: ToolReport): FsResizeError => new FsResizeError('FSRESIZE_PERMISSION_DENIED',
    `${command} could not be executed (${code}); run voe as root on the node`, { cause, tool }),
  timedOut: (command: string, args: readonly string[], timeoutMs: number, stderr: string, cause: unknown, tool: ToolReport): FsResizeError => new FsResizeError('FSRESIZE_TIMEOUT',
    `${command} ${args.join(' ')} did not finish within ${timeoutMs} ms and was stopped; check the device and the tool's output, then retry${stderr ? `: ${stderr.trim()}` : ''}`, { cause, tool }),
  abnormal: (command: string, args: readonly string[], how: string, stderr: string, cause: unknown, tool: ToolReport): FsResizeError => new FsResizeError('FSRESIZE_TOOL_FAILED',
    `${command} ${args.join(' ')} ended abnormally (${how})${stderr ? `: ${stderr.trim()}` : ''}`, { cause, tool }),
};

/** A tool that could not be started: missing (ENOENT) or not executable (EACCES, EPERM); undefined for other errors. */
export function notStartedError(command: string, searchPath: string, error: { code?: unknown }, tool: ToolReport): FsResizeError | undefined {
  if (error.code === 'ENOENT') return toolErrors.missing(command, searchPath, error, tool);
  if (error.code === 'EACCES' || error.code === 'EPERM') return toolErrors.notExecutable(command, error.code, error, tool);
  return undefined;
}
