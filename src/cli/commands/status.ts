import type { Command } from 'commander';
import { isNotFound } from '../../kube/index.js';
import {
  formatStatusTable,
  listExpansions,
  statusRow,
  TrackerError,
} from '../../vmwatcher/index.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import { kubeConfigFrom } from './enable.js';

interface StatusFlags {
  kubeconfig?: string;
  namespace?: string;
  allNamespaces?: boolean;
  json?: boolean;
}

/** `voe status`: the VolumeExpansions, as `kubectl get volumeexpansions` shows them. */
export function register(program: Command): void {
  program
    .command('status')
    .description(
      'Where each volume expansion is: the VolumeExpansions voe watch writes, with PVC, VM, FROM, TO, PHASE, WAITING FOR, AGE and MESSAGE (what happened and what to do). Reads only.',
    )
    .option(
      '-n, --namespace <namespace>',
      "namespace (default: the kubeconfig context's, else default)",
    )
    .option('-A, --all-namespaces', 'every namespace')
    .option('--json', 'print the expansions as JSON (with reason and creation time)')
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config, then in-cluster)',
    )
    .action(async (flags: StatusFlags) => {
      if (flags.allNamespaces && flags.namespace) {
        throw new TrackerError('TRACKER_USAGE', 'give -n NAMESPACE or -A, not both.');
      }
      const kubeConfig = kubeConfigFrom(flags);
      exitOnceAnswered();
      const namespace = flags.allNamespaces
        ? undefined
        : (flags.namespace ??
          kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ??
          'default');
      let rows;
      try {
        rows = (await listExpansions(kubeConfig, namespace)).map(statusRow);
      } catch (error) {
        throw new TrackerError(
          'TRACKER_API_FAILED',
          isNotFound(error)
            ? 'the cluster does not serve volumeexpansions.storage.voe.dev: install manifests/crds/volumeexpansion.yaml (and run voe watch).'
            : `listing VolumeExpansions failed: ${(error as Error).message}; check the kubeconfig and RBAC`,
          { cause: error },
        );
      }
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else if (rows.length === 0) {
        process.stderr.write(
          `No volume expansions${namespace ? ` in namespace ${namespace}` : ''}.\n`,
        );
      } else {
        process.stdout.write(
          formatStatusTable(rows, { allNamespaces: namespace === undefined, now: Date.now() }),
        );
      }
    });
}
