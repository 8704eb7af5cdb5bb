import type { Command } from 'commander';
import { register as certs } from './certs.js';
import { register as check } from './check.js';
import { register as crds } from './crds.js';
import { register as disable } from './disable.js';
import { register as enable } from './enable.js';
import { register as cluster } from './cluster.js';
import { register as csi } from './csi.js';
import { register as demo } from './demo.js';
import { register as fsresize } from './fsresize.js';
import { register as flexvolume } from './flexvolume.js';
import { register as registerServe } from './serve.js';
import { register as status } from './status.js';
import { register as watch } from './watch.js';

/**
 * Each subcommand lives in its own file and exports `register(program)`.
 * Add new subcommands to this list.
 */
const registrars: Array<(program: Command) => void> = [
  demo,
  cluster,
  fsresize,
  flexvolume,
  registerServe,
  check,
  csi,
  certs,
  crds,
  watch,
  status,
  enable,
  disable,
];

export function registerCommands(program: Command): void {
  for (const register of registrars) register(program);
}
