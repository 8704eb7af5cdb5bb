import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log/index.js';
import type { AdmissionOptions } from './admission-options.js';
import { createAdmissionValidators } from './create-admission-validators.js';
import { startAdmissionCaches, type StartedAdmissionCaches } from './start-admission-caches.js';
import type { Validator } from './validator.js';

/**
 * serveWebhook's `startCaches` and `createValidators` for the real admission decisions
 * (the drop-in replacements of startPlaceholderCaches / createPlaceholderValidators).
 */
export function admissionWiring(config: { options?: Partial<AdmissionOptions>; longhorn?: boolean } = {}): {
  startCaches: (kubeConfig: KubeConfig, logger: Logger) => Promise<StartedAdmissionCaches>;
  createValidators: (caches: StartedAdmissionCaches['caches']) => Validator[];
} {
  return {
    startCaches: (kubeConfig, logger) => Promise.resolve(startAdmissionCaches({
      kubeConfig, logger,
      ...(config.options ? { options: config.options } : {}),
      ...(config.longhorn === undefined ? {} : { longhorn: config.longhorn }),
    })),
    createValidators: (caches) => createAdmissionValidators({
      caches: caches.admission, csiDrivers: caches.csiDrivers, ...(config.options ? { options: config.options } : {}),
    }),
  };
}
