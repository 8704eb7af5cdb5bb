import type { Command } from 'commander';
import { isVoeError } from '../errors/index.js';

/** Runs the program; a VoeError becomes "voe: <code>: <message>" on stderr and exit code 2 unless the command set one. */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (isVoeError(error)) {
      process.stderr.write(`voe: ${error.code}: ${error.message}\n`);
    } else {
      process.stderr.write(`voe: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    if (!process.exitCode) process.exitCode = 2;
  }
}
