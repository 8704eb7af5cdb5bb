import type { Command } from 'commander';
import { disableExpansion } from '../../vmwatcher/index.js';
import { addEnablementFlags, runEnablement, type EnablementFlags } from './enable.js';

/** `voe disable`: undoes what voe enable recorded, nothing else. */
export function register(program: Command): void {
  const command = program
    .command('disable')
    .description(
      'Undo voe enable, once and idempotently: remove ExpandDisks from the KubeVirt CR only if voe enable added it, ' +
        'and delete the Setting only if voe enable created it and no value was set since. ' +
        'Anything else is left as it is. Each change is an Event and a log line (stderr).',
    )
    .option('--json', 'print the steps as JSON')
    .option('--log-level <level>', 'log level (stderr)', 'info');
  addEnablementFlags(command).action(
    async (flags: EnablementFlags & { json?: boolean; logLevel: string }) => {
      await runEnablement(flags, disableExpansion);
    },
  );
}
