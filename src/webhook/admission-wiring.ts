import type { KubeConfig } from '@kubernetes/client-node';
import { isGroupVersionServed } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { createAdmissionValidators } from './create-admission-validators.js';
import { startAdmissionCaches, type StartedAdmissionCaches } from './start-admission-caches.js';
import type { Validator } from './validator.js';

/**
 * serveWebhook's `startCaches` and `createValidators` for the real admission decisions
 * (`voe serve` uses them).
 */
export function admissionWiring(config: { options?: Partial<AdmissionOptions>; longhorn?: boolean | 'auto' } = {}): {
  startCaches: (kubeConfig: KubeConfig, logger: Logger) => Promise<StartedAdmissionCaches>;
  createValidators: (caches: StartedAdmissionCaches['caches']) => Validator[];
} {
  return {
    startCaches: async (kubeConfig, logger) => {
      // 'auto': watch Longhorn only where the cluster serves its API, so a cluster without
      // Longhorn still becomes ready (its volumes are then judged by StorageClass parameters).
      const longhorn = config.longhorn === 'auto' ? await isGroupVersionServed(kubeConfig, 'longhorn.io', 'v1beta2') : config.longhorn;
      if (longhorn === false) logger.info('not watching Longhorn: Longhorn volumes are judged by their StorageClass parameters only');
      return startAdmissionCaches({
        kubeConfig, logger,
        ...(config.options ? { options: config.options } : {}),
        ...(longhorn === undefined ? {} : { longhorn }),
      });
    },
    createValidators: (caches) => createAdmissionValidators({
      caches: caches.admission, csiDrivers: caches.csiDrivers, ...(config.options ? { options: config.options } : {}),
    }),
  };
}
