import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { KubeClientConfig } from '../../kube/index.js';
import { EventRecorder, eventSink } from '../../kube/index.js';
import { createLogger, outputDestination, type Logger } from '../../log/index.js';
import { EXPAND_VALIDATION_SETTING_NAME } from '../../settings/index.js';
import { DEFAULT_ADMISSION_OPTIONS } from '../../admission/index.js';
import {
  enableExpansion,
  TRACKER_CONTROLLER,
  TrackerError,
  type EnablementOptions,
  type EnablementStep,
} from '../../vmwatcher/index.js';
import { exitOnceAnswered } from '../exit-once-answered.js';
import { loadKubeConfigOr } from '../load-kube-config-or.js';

/** The flags `voe enable`, `voe disable` and `voe watch` share. */
export interface EnablementFlags {
  kubeconfig?: string;
  kubevirtNamespace: string;
  kubevirtName: string;
  settingName: string;
}

/** --kubeconfig, --kubevirt-namespace, --kubevirt-name, --setting-name. */
export function addEnablementFlags(command: Command): Command {
  return command
    .option(
      '--kubeconfig <file>',
      'kubeconfig of the cluster (default: $KUBECONFIG, ~/.kube/config, then in-cluster)',
    )
    .option(
      '--kubevirt-namespace <namespace>',
      'namespace of the KubeVirt CR (upstream KubeVirt: kubevirt)',
      DEFAULT_ADMISSION_OPTIONS.kubeVirtNamespace,
    )
    .option(
      '--kubevirt-name <name>',
      'name of the KubeVirt CR',
      DEFAULT_ADMISSION_OPTIONS.kubeVirtName,
    )
    .option(
      '--setting-name <name>',
      'name of the Harvester Setting listing the CSI drivers validated for online expansion',
      EXPAND_VALIDATION_SETTING_NAME,
    );
}

export function kubeConfigFrom(flags: { kubeconfig?: string }): KubeClientConfig {
  return loadKubeConfigOr(
    flags.kubeconfig,
    (message) => new TrackerError('TRACKER_KUBECONFIG', message),
  );
}

/** A one-shot command's Event recorder (flushed by the caller with stop()). */
export function enablementRecorder(kubeConfig: KubeClientConfig, logger: Logger): EventRecorder {
  return new EventRecorder({
    sink: eventSink(kubeConfig),
    reportingController: TRACKER_CONTROLLER,
    reportingInstance: hostname().slice(0, 128) || 'voe',
    logger,
  });
}

export function enablementOptions(
  flags: EnablementFlags,
  kubeConfig: KubeClientConfig,
  logger: Logger,
  recorder?: EventRecorder,
): EnablementOptions {
  return {
    kubeConfig,
    kubeVirtNamespace: flags.kubevirtNamespace,
    kubeVirtName: flags.kubevirtName,
    settingName: flags.settingName,
    logger,
    ...(recorder ? { recorder } : {}),
  };
}

/** Prints the steps: one `object: message` line each, or the list as JSON. */
export function printSteps(steps: EnablementStep[], json: boolean | undefined): void {
  process.stdout.write(
    json
      ? `${JSON.stringify(steps, null, 2)}\n`
      : steps.map((step) => `${step.object}: ${step.message}\n`).join(''),
  );
}

/** Runs enable or disable once: logs on stderr, Events flushed before returning. */
export async function runEnablement(
  flags: EnablementFlags & { json?: boolean; logLevel?: string },
  run: (options: EnablementOptions) => Promise<EnablementStep[]>,
): Promise<void> {
  const logger = createLogger({
    name: 'voe',
    level: flags.logLevel ?? 'info',
    destination: outputDestination(2),
  });
  const kubeConfig = kubeConfigFrom(flags);
  exitOnceAnswered();
  const recorder = enablementRecorder(kubeConfig, logger);
  try {
    printSteps(await run(enablementOptions(flags, kubeConfig, logger, recorder)), flags.json);
  } finally {
    await recorder.stop();
  }
}

/** `voe enable`: ExpandDisks and the Setting, once. */
export function register(program: Command): void {
  const command = program
    .command('enable')
    .description(
      "Enable online expansion, once and idempotently: add ExpandDisks to the KubeVirt CR's featureGates " +
        '(not on KubeVirt >= v1.9, where it is GA; nothing changes if it is in disabledFeatureGates), ' +
        'and create the csi-online-expand-validation Setting with its default if it is missing. ' +
        'What it adds is recorded on the objects; voe disable removes only that. Each change is an Event and a log line (stderr).',
    )
    .option('--json', 'print the steps as JSON')
    .option('--log-level <level>', 'log level (stderr)', 'info');
  addEnablementFlags(command).action(
    async (flags: EnablementFlags & { json?: boolean; logLevel: string }) => {
      await runEnablement(flags, enableExpansion);
    },
  );
}
