import { Command } from 'commander';
import { readPackageVersion } from './package-version.js';
import { registerCommands } from './commands/index.js';

/** The `voe` command line: every subcommand is registered from cli/commands. */
export function createProgram(): Command {
  const program = new Command('voe')
    .description('Safe, observable online volume expansion for Harvester')
    .version(readPackageVersion())
    .showHelpAfterError()
    .enablePositionalOptions();
  registerCommands(program);
  return program;
}
