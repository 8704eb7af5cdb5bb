import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandResult } from '../model/command-runner.js';
import { notStartedError, toolErrors } from './tool-errors.js';

/** The most of a tool's output kept (the end of it, where tools say what went wrong). */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/** What a tool usually writes fits here, read in one call without asking the file's size first. */
const FIRST_READ_BYTES = 64 * 1024;

async function readOutput(handle: FileHandle): Promise<string> {
  // Positional reads: the tool moved the shared file offset to the end.
  const first = await handle.read(Buffer.alloc(FIRST_READ_BYTES), 0, FIRST_READ_BYTES, 0);
  if (first.bytesRead < FIRST_READ_BYTES)
    return first.buffer.subarray(0, first.bytesRead).toString('utf8');
  const { size } = await handle.stat();
  const length = Math.min(size, MAX_OUTPUT_BYTES);
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, size - length);
  return buffer.subarray(0, bytesRead).toString('utf8');
}

/**
 * Two files to take a tool's stdout and stderr, whose names are already gone (nothing to clean
 * up): created exclusively (O_EXCL, mode 0600, random names, so nothing planted in the shared
 * temporary directory is followed) and unlinked at once; all in parallel, as this is on the path
 * of every grow. When they cannot be created (TMPDIR missing or not writable, no space or
 * inodes), FSRESIZE_TEMP_FILES_FAILED: the tool is not started.
 */
async function unlinkedOutputFiles(
  command: string,
  args: readonly string[],
): Promise<[FileHandle, FileHandle]> {
  const directory = tmpdir();
  const stem = join(directory, `voe-tool-${process.pid}-${randomBytes(8).toString('hex')}`);
  const paths = [`${stem}.out`, `${stem}.err`] as const;
  const opened = await Promise.allSettled(paths.map((path) => open(path, 'wx+', 0o600)));
  await Promise.all(
    paths.map((path, i) =>
      opened[i]!.status === 'fulfilled' ? unlink(path).catch(() => undefined) : undefined,
    ),
  );
  const handles = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = opened.find(
    (result): result is PromiseRejectedResult => result.status === 'rejected',
  );
  if (failed) {
    await Promise.all(handles.map((handle) => handle.close()));
    throw toolErrors.outputFilesFailed(command, args, directory, failed.reason);
  }
  return handles as [FileHandle, FileHandle];
}

/**
 * Runs a tool that must finish whatever happens to voe (see RunOptions.critical): in a session of
 * its own (setsid: no terminal signals), with stdout and stderr going to files that are already
 * unlinked (nothing is left behind, and no pipe can break under it). `onStart` gets its pid as
 * soon as it runs. Never stopped: when `timeoutMs` passes, the call fails with FSRESIZE_TIMEOUT
 * naming its pid (its output so far included) and the tool goes on to its end (the device lock it
 * was recorded in stays held until then). Resolves like execFile does in createExecFileRunner:
 * any exit code is a result; a missing or non-executable tool, a timeout, a death by signal and
 * output files that cannot be created are typed errors.
 */
export async function runDetached(
  command: string,
  args: readonly string[],
  options: {
    env: { PATH: string; LC_ALL: string };
    timeoutMs: number;
    onStart?: (pid: number) => void;
  },
): Promise<CommandResult> {
  const [out, err] = await unlinkedOutputFiles(command, args);
  try {
    type Ended =
      | { code: number | null; signal: NodeJS.Signals | null }
      | { spawnError: NodeJS.ErrnoException }
      | { runningPid: number };
    const ended = await new Promise<Ended>((resolve) => {
      const child = spawn(command, [...args], {
        env: options.env,
        detached: true,
        stdio: ['ignore', out.fd, err.fd],
      });
      const timer = setTimeout(() => {
        // Waited long enough: voe goes on without it (and may exit), the tool runs to its end.
        child.unref();
        resolve({ runningPid: child.pid as number });
      }, options.timeoutMs);
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ spawnError: error });
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
      if (child.pid !== undefined) options.onStart?.(child.pid);
    });
    const [stdout, stderr] = await Promise.all([readOutput(out), readOutput(err)]);
    const report = (exitCode: number | null, signal: NodeJS.Signals | null) => ({
      tool: command,
      args: [...args],
      exitCode,
      signal,
      stderr,
    });
    if ('runningPid' in ended)
      throw toolErrors.stillRunning(
        command,
        args,
        options.timeoutMs,
        ended.runningPid,
        stderr,
        report(null, null),
      );
    if ('spawnError' in ended) {
      const error = ended.spawnError;
      const tool = report(null, null);
      const notStarted = notStartedError(command, options.env.PATH, error, tool);
      if (notStarted) throw notStarted;
      throw toolErrors.abnormal(command, args, error.code ?? error.message, stderr, error, tool);
    }
    const tool = report(ended.code, ended.signal);
    if (ended.code !== null) return { exitCode: ended.code, stdout, stderr };
    throw toolErrors.abnormal(command, args, String(ended.signal), stderr, undefined, tool);
  } finally {
    await Promise.all([out.close(), err.close()]);
  }
}
