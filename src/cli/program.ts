import { Command, Help, type Option } from 'commander';
import { readPackageVersion } from './package-version.js';
import { registerCommands } from './commands/index.js';

/**
 * The `voe` command line: the subcommands are registered from cli/commands, only `command` when it
 * names one (see registerCommands).
 */
export async function createProgram(command?: string): Promise<Command> {
  const program = new Command('voe')
    .description('Safe, observable online volume expansion for Harvester')
    .version(readPackageVersion())
    .showHelpAfterError()
    .enablePositionalOptions()
    // A usage error (unknown option, bad or missing value) exits 2 from every command, as a failed
    // command does; 1 keeps its meaning (`voe check`: refused; `voe demo`: an answer differs).
    // Subcommands inherit this setting.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
    // An option a command cannot run without says so in its help (Commander does not); inherited too.
    .configureHelp({
      optionDescription(option: Option): string {
        const text = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${text} (required)` : text;
      },
    });
  await registerCommands(program, command);
  return program;
}
