import type { Command } from 'commander';
import { register as registerCheck } from './check.js';

/**
 * Each subcommand lives in its own file and exports `register(program)`.
 * Add new subcommands to this list.
 */
const registrars: Array<(program: Command) => void> = [registerCheck];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
