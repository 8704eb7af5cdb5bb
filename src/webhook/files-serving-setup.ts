import type { ServingSetup } from './serving-setup.js';

/** voe serve in cluster: serves the given certificate files; nothing to register, nothing to undo. */
export function filesServingSetup(files: { certFile: string; keyFile: string }): ServingSetup {
  return {
    prepareCertificate: () => Promise.resolve({ certFile: files.certFile, keyFile: files.keyFile }),
    afterListening: () => Promise.resolve(),
    described: () => ({}),
  };
}
