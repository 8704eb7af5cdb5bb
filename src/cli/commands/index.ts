import type { Command } from 'commander';

type Registrar = () => Promise<{ register: (program: Command) => void }>;

/**
 * Each subcommand lives in its own file and exports `register(program)`, loaded only when needed:
 * a long-running command (`voe serve`, `voe watch`, `voe csi`) keeps in memory only the code it
 * runs. Add new subcommands to this list, in the order `voe --help` lists them.
 */
const registrars: Record<string, Registrar> = {
  demo: () => import('./demo.js'),
  cluster: () => import('./cluster.js'),
  fsresize: () => import('./fsresize.js'),
  flexvolume: () => import('./flexvolume.js'),
  serve: () => import('./serve.js'),
  check: () => import('./check.js'),
  csi: () => import('./csi.js'),
  certs: () => import('./certs.js'),
  crds: () => import('./crds.js'),
  watch: () => import('./watch.js'),
  status: () => import('./status.js'),
  enable: () => import('./enable.js'),
  disable: () => import('./disable.js'),
  guest: () => import('./guest.js'),
};

/**
 * Registers the subcommand named `name` alone when there is one by that name, else every
 * subcommand (for `voe --help`, `voe help X`, an unknown command and its suggestions).
 */
export async function registerCommands(program: Command, name?: string): Promise<void> {
  const names =
    name !== undefined && Object.hasOwn(registrars, name) ? [name] : Object.keys(registrars);
  for (const each of names) (await registrars[each]!()).register(program);
}
