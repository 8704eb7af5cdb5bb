import type { KubeClientConfig } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import type { AdmissionOptions, Validator } from '../admission/index.js';
import { createAdmissionValidators } from './create-admission-validators.js';
import {
  isLonghornServed,
  startAdmissionCaches,
  type StartedAdmissionCaches,
} from '../host-cache/index.js';

/**
 * serveWebhook's `startCaches` and `createValidators` for the real admission decisions
 * (`voe serve` uses them).
 */
export function admissionWiring(
  config: {
    options?: Partial<AdmissionOptions>;
    longhorn?: boolean | 'auto';
    longhornLookIntervalMs?: number;
  } = {},
): {
  startCaches: (kubeConfig: KubeClientConfig, logger: Logger) => Promise<StartedAdmissionCaches>;
  createValidators: (caches: StartedAdmissionCaches['caches']) => Validator[];
} {
  return {
    startCaches: async (kubeConfig, logger) => {
      // 'auto': watch Longhorn where the cluster serves its API (from the start if it does now, else
      // once discovery lists it), so a cluster without Longhorn still becomes ready (its volumes are
      // then judged by StorageClass parameters). Discovery read here: an API server that cannot
      // answer it fails the start-up at once, as before.
      const served = config.longhorn === 'auto' ? await isLonghornServed(kubeConfig) : undefined;
      if (config.longhorn === false)
        logger.info(
          'not watching Longhorn: Longhorn volumes are judged by their StorageClass parameters only',
        );
      return startAdmissionCaches({
        kubeConfig,
        logger,
        ...(config.options ? { options: config.options } : {}),
        ...(config.longhorn === undefined ? {} : { longhorn: config.longhorn }),
        ...(served === undefined ? {} : { longhornServed: served }),
        ...(config.longhornLookIntervalMs === undefined
          ? {}
          : { longhornLookIntervalMs: config.longhornLookIntervalMs }),
      });
    },
    createValidators: (caches) =>
      createAdmissionValidators({
        caches: caches.admission,
        csiDrivers: caches.csiDrivers,
        ...(config.options ? { options: config.options } : {}),
      }),
  };
}
