import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandResult } from './command-runner.js';
import { toolErrors } from './tool-errors.js';

/** The most of a tool's output kept (the end of it, where tools say what went wrong). */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

async function readOutput(handle: FileHandle): Promise<string> {
  const { size } = await handle.stat();
  const length = Math.min(size, MAX_OUTPUT_BYTES);
  const buffer = Buffer.alloc(length);
  // Positional: the tool moved the shared file offset to the end.
  const { bytesRead } = await handle.read(buffer, 0, length, size - length);
  return buffer.subarray(0, bytesRead).toString('utf8');
}

/** Two files to take a tool's stdout and stderr, whose names are already gone (nothing to clean up). */
async function unlinkedOutputFiles(): Promise<[FileHandle, FileHandle]> {
  const directory = await mkdtemp(join(tmpdir(), 'voe-tool-'));
  try {
    const out = await open(join(directory, 'stdout'), 'w+', 0o600);
    const err = await open(join(directory, 'stderr'), 'w+', 0o600).catch(async (error: unknown) => { await out.close(); throw error; });
    return [out, err];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * Runs a tool that must finish whatever happens to voe (see RunOptions.critical): in a session of
 * its own (setsid: no terminal signals), with stdout and stderr going to files that are already
 * unlinked (nothing is left behind, and no pipe can break under it). `onStart` gets its pid as
 * soon as it runs. Stopped (SIGTERM) only when `timeoutMs` passes. Resolves like execFile does in
 * createExecFileRunner: any exit code is a result; a missing or non-executable tool, a timeout
 * and a death by signal are typed errors.
 */
export async function runDetached(command: string, args: readonly string[],
  options: { env: { PATH: string; LC_ALL: string }; timeoutMs: number; onStart?: (pid: number) => void }): Promise<CommandResult> {
  const [out, err] = await unlinkedOutputFiles();
  try {
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stopped: boolean } | { spawnError: NodeJS.ErrnoException }>((resolve) => {
      const child = spawn(command, [...args], { env: options.env, detached: true, stdio: ['ignore', out.fd, err.fd] });
      let stopped = false;
      const timer = setTimeout(() => { stopped = true; child.kill('SIGTERM'); }, options.timeoutMs);
      child.once('error', (error: NodeJS.ErrnoException) => { clearTimeout(timer); resolve({ spawnError: error }); });
      child.once('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stopped }); });
      if (child.pid !== undefined) options.onStart?.(child.pid);
    });
    const stdout = await readOutput(out);
    const stderr = await readOutput(err);
    if ('spawnError' in ended) {
      const error = ended.spawnError;
      const tool = { tool: command, args: [...args], exitCode: null, signal: null, stderr };
      if (error.code === 'ENOENT') throw toolErrors.missing(command, options.env.PATH, error, tool);
      if (error.code === 'EACCES' || error.code === 'EPERM') throw toolErrors.notExecutable(command, error.code, error, tool);
      throw toolErrors.abnormal(command, args, error.code ?? error.message, stderr, error, tool);
    }
    const tool = { tool: command, args: [...args], exitCode: ended.code, signal: ended.signal, stderr };
    if (ended.stopped) throw toolErrors.timedOut(command, args, options.timeoutMs, stderr, undefined, tool);
    if (ended.code !== null) return { exitCode: ended.code, stdout, stderr };
    throw toolErrors.abnormal(command, args, String(ended.signal), stderr, undefined, tool);
  } finally {
    await out.close();
    await err.close();
  }
}
