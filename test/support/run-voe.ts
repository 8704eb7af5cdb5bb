import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (dist/src/cli/main.js). */
export const VOE_MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Runs `voe ARGS` as a user would (a process of its own) and resolves with its exit code and output. */
export function runVoe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [VOE_MAIN, ...args],
      { env: options.env ?? process.env, ...(options.timeout ? { timeout: options.timeout } : {}) },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}
