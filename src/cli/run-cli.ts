import type { Command } from 'commander';
import { errorLine } from './error-line.js';

/** Runs the program; an error becomes errorLine() on stderr and exit code 2 unless the command set one. */
export async function runCli(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.stderr.write(errorLine(error));
    if (!process.exitCode) process.exitCode = 2;
  }
}
