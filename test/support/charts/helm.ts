import { execFile } from 'node:child_process';
import { access, constants, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultCacheDir } from '../../../src/cli/cache-dir.js';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';
import { runGo } from '../../../src/controlplane/run-go.js';
import { acquireLockFile } from '../../../src/lock/index.js';

/** The helm release the chart tests run, built from its Go module (served by the Go module proxy). */
export const HELM_VERSION = 'v3.22.0';
export const HELM_PACKAGE = 'helm.sh/helm/v3/cmd/helm';
/** The Kubernetes minor of the client-go helm v3.22.0 requires (v0.37.0): helm's default for `.Capabilities`, as its Makefile stamps it. */
const HELM_KUBE_MINOR = '37';

/**
 * What helm's Makefile stamps with -X (a module build has no git tree to read them from): its own
 * version (`helm version`) and the Kubernetes version lint and template assume without --kube-version.
 */
const HELM_LDFLAGS = [
  `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
  '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
  ...['pkg/lint/rules', 'pkg/chartutil'].flatMap((pkg) => [
    `-X helm.sh/helm/v3/${pkg}.k8sVersionMajor=1`,
    `-X helm.sh/helm/v3/${pkg}.k8sVersionMinor=${HELM_KUBE_MINOR}`,
  ]),
].join(' ');

/** Where the built helm is cached, outside any clone (beside the control plane's binaries). */
export function helmDir(cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'bin', `helm-${HELM_VERSION}`);
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The path of helm, built first when it is not cached: `go install <package>@<version>` with the
 * Makefile's version stamps (about two minutes on 2 cores with a warm module cache, several with a
 * cold one) into a temporary GOBIN, then renamed into the cache. One build at a time across
 * processes (a lock file in the cache directory); a test process that finds it built uses it.
 */
export async function ensureHelm(
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv; onProgress?: (line: string) => void } = {},
): Promise<string> {
  const dir = helmDir(options.cacheDir);
  const binary = join(dir, 'helm');
  if (await executable(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const release = await acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 30 * 60_000,
    pollMs: 500,
    busy: (pid) => new Error(`process ${pid} has been building helm in ${dir} for 30 minutes`),
    cannotCreate: (code) => new Error(`cannot create the build lock in ${dir} (${code})`),
    onWait: (pid) => options.onProgress?.(`process ${pid} is building helm; waiting for it`),
  });
  try {
    if (await executable(binary)) return binary;
    const gobin = join(dir, `.gobin-${process.pid}`);
    await rm(gobin, { recursive: true, force: true });
    options.onProgress?.(
      `building helm ${HELM_VERSION} from Go modules into ${dir} (first time only)`,
    );
    try {
      await runGo(
        ['install', '-trimpath', '-ldflags', HELM_LDFLAGS, `${HELM_PACKAGE}@${HELM_VERSION}`],
        {
          env: { ...goBuildEnv(options.env ?? process.env), GOBIN: gobin },
          label: `helm ${HELM_VERSION}`,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          onStarted: release.recordHelper,
        },
      );
      await rename(join(gobin, 'helm'), binary);
    } finally {
      await rm(gobin, { recursive: true, force: true });
    }
    return binary;
  } finally {
    await release();
  }
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
