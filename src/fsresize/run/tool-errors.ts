import { FsResizeError, type ToolReport } from '../model/fsresize-error.js';

/** The typed errors of a tool the runner could not run to a normal end; every runner path uses these. */
export const toolErrors = {
  missing: (command: string, searchPath: string, cause: unknown, tool: ToolReport): FsResizeError =>
    new FsResizeError(
      'FSRESIZE_TOOL_MISSING',
      `${command} is not installed (looked in ${searchPath}); install it on this node (e2fsprogs, xfsprogs, btrfs-progs or util-linux) and retry`,
      { cause, tool },
    ),
  notExecutable: (command: string, code: string, cause: unknown, tool: ToolReport): FsResizeError =>
    new FsResizeError(
      'FSRESIZE_PERMISSION_DENIED',
      `${command} could not be executed (${code}); run voe as root on the node`,
      { cause, tool },
    ),
  timedOut: (
    command: string,
    args: readonly string[],
    timeoutMs: number,
    stderr: string,
    cause: unknown,
    tool: ToolReport,
    stopped = 'was stopped',
  ): FsResizeError =>
    new FsResizeError(
      'FSRESIZE_TIMEOUT',
      `${command} ${args.join(' ')} did not finish within ${timeoutMs} ms and ${stopped}; check the device and the tool's output, then retry${stderr ? `: ${stderr.trim()}` : ''}`,
      { cause, tool },
    ),
  /** A critical tool (it writes the filesystem) outlived its timeout: left running, never stopped midway. */
  stillRunning: (
    command: string,
    args: readonly string[],
    timeoutMs: number,
    pid: number,
    stderr: string,
    tool: ToolReport,
  ): FsResizeError =>
    new FsResizeError(
      'FSRESIZE_TIMEOUT',
      `${command} ${args.join(' ')} did not finish within ${timeoutMs} ms and is still running (pid ${pid}): voe stopped waiting but left it running, ` +
        'as stopping it midway would damage the filesystem; the device lock stays held until it ends, so the next resize of this device waits for it — ' +
        `retry once it has ended (ps -p ${pid})${stderr ? `; its output so far: ${stderr.trim()}` : ''}`,
      { tool, details: { pid } },
    ),
  outputFilesFailed: (
    command: string,
    args: readonly string[],
    directory: string,
    cause: unknown,
  ): FsResizeError => {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? 'error';
    const why =
      code === 'ENOENT'
        ? 'it does not exist'
        : code === 'ENOTDIR'
          ? 'it is not a directory'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? 'it is not writable'
            : code === 'ENOSPC' || code === 'EDQUOT'
              ? 'it is out of space or inodes'
              : 'it cannot be written';
    return new FsResizeError(
      'FSRESIZE_TEMP_FILES_FAILED',
      `cannot create the files for the output of ${command} ${args.join(' ')} in the temporary directory ${directory} (${code}: ${why}); ${command} was not started, so it changed nothing — fix ${directory}, or point TMPDIR at an existing, writable directory with free space, and retry`,
      { cause, details: { directory, errno: code } },
    );
  },
  abnormal: (
    command: string,
    args: readonly string[],
    how: string,
    stderr: string,
    cause: unknown,
    tool: ToolReport,
  ): FsResizeError =>
    new FsResizeError(
      'FSRESIZE_TOOL_FAILED',
      `${command} ${args.join(' ')} ended abnormally (${how})${stderr ? `: ${stderr.trim()}` : ''}`,
      { cause, tool },
    ),
};

/** A tool that could not be started: missing (ENOENT) or not executable (EACCES, EPERM); undefined for other errors. */
export function notStartedError(
  command: string,
  searchPath: string,
  error: { code?: unknown },
  tool: ToolReport,
): FsResizeError | undefined {
  if (error.code === 'ENOENT') return toolErrors.missing(command, searchPath, error, tool);
  if (error.code === 'EACCES' || error.code === 'EPERM')
    return toolErrors.notExecutable(command, error.code, error, tool);
  return undefined;
}
