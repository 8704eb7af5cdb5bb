import type { Command } from 'commander';
import { register as registerFsresize } from './fsresize.js';
import { register as registerFlexvolume } from './flexvolume.js';

/**
 * Each subcommand lives in its own file and exports `register(program)`.
 * Add new subcommands to this list.
 */
const registrars: Array<(program: Command) => void> = [
  registerFsresize,
  registerFlexvolume,
];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
