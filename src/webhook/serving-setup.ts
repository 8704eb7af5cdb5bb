import type { KubeClientConfig } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import type { StartedCaches } from './started-caches.js';
import type { StartUpCleanups } from './start-up-cleanups.js';

/** What a ServingSetup's steps are given; each registers the undoing of what it did in `cleanups`. */
export interface ServingSetupStep {
  cleanups: StartUpCleanups;
  logger: Logger;
  /** Aborted: the step ends its waits and throws WEBHOOK_START_ABORTED (continueUnlessAborted). */
  signal: AbortSignal | undefined;
}

/**
 * How serveWebhook gets its serving certificate and what it does once it listens: in cluster the
 * given files and nothing more (filesServingSetup), with voe serve --dev a generated certificate
 * and a registration of its own (devServingSetup). The cli picks one (chooseServingSetup).
 * Undoing is part of each step: it adds a Cleanup for what it changed, and stop() (or a failed
 * start-up) runs them, the last added first. One setup serves one start-up.
 */
export interface ServingSetup {
  /** Before the caches start: the certificate and key files to serve (reloaded when they change). */
  prepareCertificate(
    step: ServingSetupStep & { host: string },
  ): Promise<{ certFile: string; keyFile: string }>;
  /** Once the server listens at `url` on the started caches. */
  afterListening(
    step: ServingSetupStep & {
      kubeConfig: KubeClientConfig;
      /** https://host:port the webhook answers on. */
      url: string;
      started: StartedCaches<unknown>;
      /** The reviews the setting webhook has answered, in process. */
      reviewsAnswered: () => Promise<number>;
    },
  ): Promise<void>;
  /** What the started webhook reports of this setup (ServingWebhook's certDir and configurationName). */
  described(): { certDir?: string; configurationName?: string };
}
