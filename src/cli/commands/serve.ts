import type { Command } from 'commander';
import { loadKubeConfig } from '../../kube/index.js';
import { createLogger, type Logger } from '../../log/index.js';
import { admissionWiring, chooseServingSetup } from '../../webhook/index.js';
import { addAdmissionFlags } from '../admission-flags.js';
import { watchStopRequests, type StopRequests } from '../stop-requests.js';
import { describeStop } from './describe-stop.js';
import { addServeFlags, servePlan, type ServeFlags } from './serve-flags.js';
import { startServing } from './start-serving.js';
import { removeRegistrationOnNamespaceEnd } from './remove-registration-on-namespace-end.js';
import { stopServing } from './stop-serving.js';

export function register(program: Command): void {
  const command = addServeFlags(
    program
      .command('serve')
      .description(
        'Serve the admission webhooks (PVC resize, VM volumeClaimTemplates, Setting) over HTTPS, with /livez, /readyz and /metrics',
      ),
  );
  addAdmissionFlags(command).action(async (flags: ServeFlags) => {
    const logger = createLogger({ name: 'voe-webhook', level: flags.logLevel });
    // Before anything changes in the cluster or on disk: a signal or an uncaught error from here on
    // undoes what was done (registration, server, temporary certificate dir), also during start-up.
    // A second request ends the --shutdown-delay wait at once.
    const hurry = new AbortController();
    const stops = watchStopRequests(process, (reason) => {
      hurry.abort();
      logger.warn(describeStop(reason), 'already stopping; waiting for the cleanup to finish');
    });
    try {
      await serve(flags, logger, stops, hurry.signal);
    } finally {
      stops.dispose();
    }
  });
}

/** voe serve: its flags read, the cluster and the decisions wired, then served until asked to stop. */
async function serve(
  flags: ServeFlags,
  logger: Logger,
  stops: StopRequests,
  hurry: AbortSignal,
): Promise<void> {
  const plan = servePlan(flags);
  const kubeConfig = loadKubeConfig(flags.kubeconfig);
  const wiring = admissionWiring({ options: plan.admission, longhorn: plan.longhorn });
  // In cluster the given certificate files and nothing more; --dev's certificate and registration otherwise.
  const { host, port, ...choice } = plan.webhook;
  const setup = chooseServingSetup(choice);
  const serving = await startServing(
    {
      host,
      port,
      setup,
      kubeConfig,
      logger,
      signal: stops.signal,
      startCaches: wiring.startCaches,
      createValidators: wiring.createValidators,
    },
    stops,
  );
  const reason = await stops.requested;
  if (flags.registration && flags.namespace)
    await removeRegistrationOnNamespaceEnd(kubeConfig, flags.namespace, flags.registration, logger);
  await stopServing(serving, reason, { logger, shutdownDelay: plan.shutdownDelay, hurry });
}
