import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { installGoTool, type GoTool, type InstallGoToolOptions } from '../build-go-program.js';

const HELM_VERSION = 'v3.22.0';
/** The Kubernetes minor of the client-go helm v3.22.0 requires (v0.37.0): helm's default for `.Capabilities`, as its Makefile stamps it. */
const HELM_KUBE_MINOR = '37';

/**
 * The helm release the chart tests run, built from its Go module (served by the Go module proxy),
 * with what helm's Makefile stamps with -X (a module build has no git tree to read them from): its
 * own version (`helm version`) and the Kubernetes version lint and template assume without
 * --kube-version.
 */
export const HELM: GoTool = {
  name: 'helm',
  pkg: 'helm.sh/helm/v3/cmd/helm',
  version: HELM_VERSION,
  ldflags: [
    `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
    ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=1`,
      `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${HELM_KUBE_MINOR}`,
    ]),
  ].join(' '),
};

/** The path of helm, built once into the test cache (installGoTool: about two minutes on 2 cores). */
export function ensureHelm(options: InstallGoToolOptions = {}): Promise<string> {
  return installGoTool(HELM, options);
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `helm ARGS` (no shell) with a HOME-free helm configuration under `home`; resolves with how it ended. */
export function runHelm(helm: string, args: string[], home: string): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(
      helm,
      args,
      {
        // Only what helm needs: no KUBECONFIG of the machine (template and lint never talk to a cluster).
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HELM_CACHE_HOME: join(home, 'cache'),
          HELM_CONFIG_HOME: join(home, 'config'),
          HELM_DATA_HOME: join(home, 'data'),
          // client-go's discovery cache ($HOME/.kube/cache) when helm talks to a cluster.
          HOME: join(home, 'home'),
          KUBECONFIG: join(home, 'no-kubeconfig'),
        },
        maxBuffer: 64 << 20,
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: error ? (error.code as unknown as number) : 0, stdout, stderr });
      },
    );
  });
}
