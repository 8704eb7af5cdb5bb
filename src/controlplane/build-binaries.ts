import { makeDirectories } from '../files/index.js';
import { spawn } from 'node:child_process';
import { access, rename, rm, stat, writeFile, constants } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ControlPlaneError } from './control-plane-error.js';
import { acquireLockFile } from '../lock/index.js';
import { checkGoVersion } from './check-go-version.js';
import { goBuildEnv } from './go-build-env.js';
import { describeGoExit, etcdFallbackAllowed, type GoExit } from './go-exit.js';
import { goModuleDir } from './go-module-dir.js';
import { ETCD_VERSION, KUBERNETES_VERSION } from './versions.js';

export interface BuiltBinaries {
  kubeApiServer: string;
  etcd: string;
  /** "go-build" when etcd was built from Go modules, "debian" when the etcd-server fallback is used. */
  etcdSource: 'go-build' | 'debian';
}

export interface BuildOptions {
  cacheDir: string;
  /** Progress lines for a person (the first build takes minutes). */
  onProgress?: (line: string) => void;
  /** Environment for `go` (PATH, HOME, GOCACHE...). */
  env?: NodeJS.ProcessEnv;
  /** Where Debian's etcd-server installs etcd (fallback only). */
  debianEtcd?: string;
}

/** How long a failed etcd build makes later runs use Debian's etcd instead of building again. */
export const ETCD_FALLBACK_KEPT_MS = 24 * 3_600_000;

const LDFLAG_PACKAGES = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];

function versionLdflags(): string {
  const [major, minor] = KUBERNETES_VERSION.replace(/^v/, '').split('.');
  return LDFLAG_PACKAGES.flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]).join(' ');
}

/**
 * Where the binaries of this version are cached: absolute (a relative cache directory is read from
 * the current directory), since `go` runs in the Go module's directory and writes its `-o` there.
 */
export function binariesDir(cacheDir: string): string {
  return join(resolve(cacheDir), 'bin', `kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}`);
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(() => true, () => false);
}

function runGo(args: string[], options: BuildOptions, label: string): Promise<void> {
  const started = Date.now();
  const env = goBuildEnv(options.env ?? {});
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd: goModuleDir(), env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-8000); });
    const ticker = setInterval(() => {
      options.onProgress?.(`  still building ${label} (${Math.round((Date.now() - started) / 1000)} s)`);
    }, 30_000);
    child.on('error', (error) => {
      clearInterval(ticker);
      const code = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'CONTROLPLANE_GO_MISSING' : 'CONTROLPLANE_BUILD_FAILED';
      reject(new ControlPlaneError(code, `cannot run go to build ${label}: ${error.message}. Install Go >= 1.24 or point TEST_ASSET_KUBE_APISERVER/TEST_ASSET_ETCD (or KUBEBUILDER_ASSETS) at existing binaries.`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      clearInterval(ticker);
      if (code === 0) {
        options.onProgress?.(`  built ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve();
      } else {
        const exit: GoExit = { code, signal, stderr };
        reject(new ControlPlaneError('CONTROLPLANE_BUILD_FAILED', `go build of ${label} ${describeGoExit(exit)}${stderr.trim() ? `:\n${stderr.trim()}` : ''}`, { details: { stderr, goExit: exit } }));
      }
    });
  });
}

async function buildOne(pkg: string, output: string, options: BuildOptions, label: string, ldflags?: string): Promise<void> {
  const tmp = `${output}.tmp-${process.pid}`;
  const args = ['build', '-trimpath', '-o', tmp];
  if (ldflags) args.push('-ldflags', ldflags);
  args.push(pkg);
  try {
    await runGo(args, options, label);
    await rename(tmp, output);
  } finally {
    await rm(tmp, { force: true });
  }
}

/**
 * Builds kube-apiserver and etcd with `go build` from the pinned Go module, once per version,
 * into the cache. Parallel callers (test processes) wait for one build.
 */
export async function buildBinaries(options: BuildOptions): Promise<BuiltBinaries> {
  const dir = binariesDir(options.cacheDir);
  const kubeApiServer = join(dir, 'kube-apiserver');
  const builtEtcd = join(dir, 'etcd');
  const fallbackMarker = join(dir, 'etcd-fallback');
  const debianEtcd = options.debianEtcd ?? '/usr/bin/etcd';
  try {
    await makeDirectories(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ControlPlaneError('CONTROLPLANE_BUILD_FAILED',
      `cannot create the build cache ${dir} (${code}); pass a writable --cache-dir or set VOE_CACHE_DIR`, { cause: error });
  }

  const cached = async (): Promise<BuiltBinaries | undefined> => {
    if (!(await isExecutable(kubeApiServer))) return undefined;
    if (await isExecutable(builtEtcd)) return { kubeApiServer, etcd: builtEtcd, etcdSource: 'go-build' };
    // A failed etcd build is remembered for a day only: it may have failed for a passing reason
    // (the module proxy unreachable), and the etcd Kubernetes recommends is worth another try.
    const fallback = await stat(fallbackMarker).catch(() => undefined);
    const recent = fallback !== undefined && Date.now() - fallback.mtimeMs < ETCD_FALLBACK_KEPT_MS;
    if (recent && (await isExecutable(debianEtcd))) return { kubeApiServer, etcd: debianEtcd, etcdSource: 'debian' };
    return undefined;
  };

  const hit = await cached();
  if (hit) return hit;
  // One build at a time across processes (parallel test files); a lock whose owner died
  // (e.g. a killed `voe cluster start`) is taken over at once.
  const release = await acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 60 * 60_000,
    pollMs: 500,
    busy: (pid) => new ControlPlaneError('CONTROLPLANE_BUILD_FAILED', `process ${pid} has been building the control plane binaries in ${dir} for an hour; stop it or remove ${join(dir, '.build.lock')}`),
    cannotCreate: (code, cause) => new ControlPlaneError('CONTROLPLANE_BUILD_FAILED', `cannot create the build lock in ${dir} (${code}); check that the cache directory is writable or set VOE_CACHE_DIR`, { cause }),
    onWait: (pid) => options.onProgress?.(`voe: process ${pid} is building the control plane binaries; waiting for it`),
  });
  try {
    const again = await cached();
    if (again) return again;
    await checkGoVersion(goBuildEnv(options.env ?? {}), `kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION}`);
    options.onProgress?.(`voe: building kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION} from Go modules into ${dir} (first time only; about 5 minutes on 2 cores)`);
    if (!(await isExecutable(kubeApiServer))) {
      await buildOne('k8s.io/kubernetes/cmd/kube-apiserver', kubeApiServer, options, `kube-apiserver ${KUBERNETES_VERSION}`, versionLdflags());
    }
    try {
      await buildOne('go.etcd.io/etcd/server/v3', builtEtcd, options, `etcd ${ETCD_VERSION}`);
      return { kubeApiServer, etcd: builtEtcd, etcdSource: 'go-build' };
    } catch (error) {
      // Only go's own failure to build etcd: not a rename into the cache, not go killed, not a full disk.
      const exit = error instanceof ControlPlaneError ? error.details['goExit'] as GoExit | undefined : undefined;
      if (exit === undefined || !etcdFallbackAllowed(exit)) throw error;
      if (!(await isExecutable(debianEtcd))) {
        throw new ControlPlaneError('CONTROLPLANE_BUILD_FAILED', `etcd build failed and Debian's etcd-server is not installed at ${debianEtcd} (apt-get install etcd-server): ${(error as Error).message}`, { cause: error });
      }
      options.onProgress?.(`voe: etcd build failed; falling back to Debian's etcd-server at ${debianEtcd} (older than the etcd Kubernetes ${KUBERNETES_VERSION} recommends)`);
      await writeFile(fallbackMarker, `${(error as Error).message}\n`);
      return { kubeApiServer, etcd: debianEtcd, etcdSource: 'debian' };
    }
  } finally {
    await release();
  }
}
