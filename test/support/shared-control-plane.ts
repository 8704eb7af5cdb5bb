/**
 * One control plane for a whole mocha run, shared by the test files that neither stop, restart
 * nor reconfigure the API server and keep out of each other's way: each works in a namespace of
 * its own and names whatever it creates outside it with that namespace's name as prefix.
 *
 * scripts/run-tests.mjs loads this module with `--require` for runs that include integration or
 * e2e tests: mocha then runs its global fixtures once, in its main process (with --parallel, before
 * any worker starts), and the workers inherit SHARED_KUBECONFIG_ENV from it. A test file run
 * without the fixture (plain `npx mocha FILE`) gets a control plane of its own instead.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { installCrds, type ControlPlane } from '../../src/controlplane/index.js';
import { startTestControlPlane, useControlPlane } from './use-control-plane.js';

/** The environment variable naming the shared control plane's admin kubeconfig file. */
export const SHARED_KUBECONFIG_ENV = 'VOE_TEST_SHARED_KUBECONFIG';

let shared: ControlPlane | undefined;

/** mocha global fixture: starts the shared control plane and installs the CRDs (ours and the ones we read). */
export async function mochaGlobalSetup(): Promise<void> {
  shared = await startTestControlPlane();
  await installCrds(shared.kubeConfig);
  process.env[SHARED_KUBECONFIG_ENV] = shared.kubeconfigPath;
}

/** mocha global fixture: stops the shared control plane once every test file has run. */
export async function mochaGlobalTeardown(): Promise<void> {
  delete process.env[SHARED_KUBECONFIG_ENV];
  await shared?.stop();
  shared = undefined;
}

/** What a test file gets of the shared control plane. */
export interface SharedControlPlane {
  /** Admin KubeConfig (system:masters). */
  readonly kubeConfig: KubeConfig;
  /** Admin kubeconfig file, e.g. for `voe --kubeconfig`. */
  readonly kubeconfigPath: string;
  /**
   * A namespace created for this file alone; also the prefix for the names of what the file
   * creates outside it. A DNS label: `name` and a random suffix.
   */
  readonly namespace: string;
}

/**
 * Gives the calling test file the run's shared control plane (CRDs installed) and a namespace of
 * its own there. Without the global fixture, starts a control plane for the file (useControlPlane,
 * stopped in an `after` hook). Call it at the top level of the file, as useControlPlane. The
 * namespace is not deleted afterwards: no namespace controller runs to finish that, and the
 * control plane goes at the end of the run.
 */
export async function useSharedControlPlane(name: string): Promise<SharedControlPlane> {
  if (!/^[a-z]([-a-z0-9]{0,40}[a-z0-9])?$/.test(name))
    throw new Error(`${name} is not a short DNS label`);
  const path = process.env[SHARED_KUBECONFIG_ENV];
  let kubeConfig: KubeConfig;
  let kubeconfigPath: string;
  if (path) {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(path);
    kubeconfigPath = path;
  } else {
    ({ kubeConfig, kubeconfigPath } = await useControlPlane());
  }
  const namespace = `${name}-${randomBytes(4).toString('hex')}`;
  await kubeConfig
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: namespace } } });
  return { kubeConfig, kubeconfigPath, namespace };
}
