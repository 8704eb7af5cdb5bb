import type { ControlPlane } from '../../src/controlplane/index.js';

/**
 * Starts a real control plane for one test file (CRDs installed) and stops it in an
 * `after` hook, also when the test fails. Placeholder until the control plane lands.
 */
export async function useControlPlane(): Promise<ControlPlane> {
  throw new Error('control plane not implemented yet');
}
