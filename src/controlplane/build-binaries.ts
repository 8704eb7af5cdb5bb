import { makeDirectories } from '../files/index.js';
import { access, rename, rm, stat, writeFile, constants } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ControlPlaneError } from './control-plane-error.js';
import { acquireLockFile, type ReleaseLockFile } from '../lock/index.js';
import { BUILD_FLAGS, BUILD_STEPS, moduleRecipeKey, type BuildStep } from './build-recipe.js';
import { checkBuiltBinary } from './check-built-binary.js';
import { checkGoVersion } from './check-go-version.js';
import { goBuildEnv } from './go-build-env.js';
import { etcdFallbackAllowed, type GoExit } from './go-exit.js';
import { removeBuildLeftovers } from './remove-build-leftovers.js';
import { runGo } from './run-go.js';
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

/**
 * Where the binaries of this recipe are cached: named with the versions and the recipe's key
 * (moduleRecipeKey), and absolute (a relative cache directory is read from the current directory),
 * since `go` runs in the Go module's directory and writes its `-o` there.
 */
export function binariesDir(cacheDir: string): string {
  return join(
    resolve(cacheDir),
    'bin',
    `kubernetes-${KUBERNETES_VERSION}-etcd-${ETCD_VERSION}-${moduleRecipeKey()}`,
  );
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** Where go keeps its work (GOTMPDIR): in the cache, so what a killed go left there is removed by the next build. */
const GO_TMP = '.go-tmp';
/** The name each binary is built under before it is renamed into place ("etcd.tmp-<pid>"). */
const BUILDING = /^(?:kube-apiserver|etcd)\.tmp-\d+$/;

/** Removes what interrupted control-plane builds left in `dir` (under the build lock). */
function removeLeftovers(dir: string): Promise<void> {
  return removeBuildLeftovers(dir, (name) => BUILDING.test(name) || name === GO_TMP);
}

/** Builds `step` into DIR/<binary>: under a temporary name, checked, then renamed into place. */
async function buildOne(
  dir: string,
  step: BuildStep,
  options: BuildOptions,
  recordHelper: (pid: number) => void,
): Promise<void> {
  const output = join(dir, step.binary);
  const tmp = `${output}.tmp-${process.pid}`;
  const args = ['build', ...BUILD_FLAGS, '-o', tmp];
  if (step.ldflags) args.push('-ldflags', step.ldflags);
  args.push(step.pkg);
  const goTmp = join(dir, GO_TMP);
  try {
    await makeDirectories(goTmp);
    await runGo(args, {
      env: { ...goBuildEnv(options.env ?? {}), GOTMPDIR: goTmp },
      label: step.label,
      onProgress: options.onProgress,
      onStarted: recordHelper,
    });
    await checkBuiltBinary(tmp, step);
    await rename(tmp, output);
  } finally {
    await rm(tmp, { force: true });
    await rm(goTmp, { recursive: true, force: true });
  }
}

/**
 * Builds kube-apiserver and etcd with `go build` from the pinned Go module, once per version,
 * into the cache. Parallel callers (test processes) wait for one build: the cache is looked at,
 * then again under the build lock, and only what is missing is built (buildMissing).
 */
export async function buildBinaries(options: BuildOptions): Promise<BuiltBinaries> {
  const cache = binaryPaths(options);
  await makeCacheDir(cache.dir);
  const hit = await cachedBinaries(cache);
  if (hit) return hit;
  const release = await acquireBuildLock(cache.dir, options.onProgress);
  try {
    return (
      (await cachedBinaries(cache)) ?? (await buildMissing(cache, options, release.recordHelper))
    );
  } finally {
    await release();
  }
}

/** Where the binaries of this recipe are (or go), and Debian's etcd. */
interface BinaryPaths {
  dir: string;
  kubeApiServer: string;
  builtEtcd: string;
  /** Written when the etcd build failed and Debian's etcd is used instead (its mtime: since when). */
  fallbackMarker: string;
  debianEtcd: string;
}

function binaryPaths(options: BuildOptions): BinaryPaths {
  const dir = binariesDir(options.cacheDir);
  return {
    dir,
    kubeApiServer: join(dir, 'kube-apiserver'),
    builtEtcd: join(dir, 'etcd'),
    fallbackMarker: join(dir, 'etcd-fallback'),
    debianEtcd: options.debianEtcd ?? '/usr/bin/etcd',
  };
}

async function makeCacheDir(dir: string): Promise<void> {
  try {
    await makeDirectories(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ControlPlaneError(
      'CONTROLPLANE_BUILD_FAILED',
      `cannot create the build cache ${dir} (${code}); pass a writable --cache-dir or set VOE_CACHE_DIR`,
      { cause: error },
    );
  }
}

/**
 * The binaries already in the cache: kube-apiserver and the etcd built, or Debian's etcd when the
 * etcd build failed less than ETCD_FALLBACK_KEPT_MS ago. A failed etcd build is remembered for a
 * day only: it may have failed for a passing reason (the module proxy unreachable), and the etcd
 * Kubernetes recommends is worth another try.
 */
async function cachedBinaries(cache: BinaryPaths): Promise<BuiltBinaries | undefined> {
  const { kubeApiServer, builtEtcd, debianEtcd } = cache;
  if (!(await isExecutable(kubeApiServer))) return undefined;
  if (await isExecutable(builtEtcd))
    return { kubeApiServer, etcd: builtEtcd, etcdSource: 'go-build' };
  const fallback = await stat(cache.fallbackMarker).catch(() => undefined);
  const recent = fallback !== undefined && Date.now() - fallback.mtimeMs < ETCD_FALLBACK_KEPT_MS;
  if (recent && (await isExecutable(debianEtcd)))
    return { kubeApiServer, etcd: debianEtcd, etcdSource: 'debian' };
  return undefined;
}

/**
 * One build at a time across processes (parallel test files); a lock whose owner died (e.g. a
 * killed `voe cluster start`) is taken over at once, unless the go it started (its helper) still
 * runs: one killed with SIGKILL cannot kill its go, which goes on building.
 */
function acquireBuildLock(
  dir: string,
  onProgress: BuildOptions['onProgress'],
): Promise<ReleaseLockFile> {
  return acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 60 * 60_000,
    pollMs: 500,
    busy: (pid) =>
      new ControlPlaneError(
        'CONTROLPLANE_BUILD_FAILED',
        `process ${pid} has been building the control plane binaries in ${dir} for an hour; stop it or remove ${join(dir, '.build.lock')}`,
      ),
    cannotCreate: (code, cause) =>
      new ControlPlaneError(
        'CONTROLPLANE_BUILD_FAILED',
        `cannot create the build lock in ${dir} (${code}); check that the cache directory is writable or set VOE_CACHE_DIR`,
        { cause },
      ),
    onWait: (pid) =>
      onProgress?.(`voe: process ${pid} is building the control plane binaries; waiting for it`),
  });
}

/** Under the build lock: removes what interrupted builds left, checks go, then builds kube-apiserver (when missing) and etcd. */
async function buildMissing(
  cache: BinaryPaths,
  options: BuildOptions,
  recordHelper: (pid: number) => void,
): Promise<BuiltBinaries> {
  const { dir, kubeApiServer } = cache;
  await removeLeftovers(dir);
  await checkGoVersion(
    goBuildEnv(options.env ?? {}),
    `kube-apiserver ${KUBERNETES_VERSION} and etcd ${ETCD_VERSION}`,
  );
  const [apiServerStep, etcdStep] = BUILD_STEPS as [BuildStep, BuildStep];
  const buildApiServer = !(await isExecutable(kubeApiServer));
  const what = buildApiServer ? `${apiServerStep.label} and ${etcdStep.label}` : etcdStep.label;
  options.onProgress?.(
    `voe: building ${what} from Go modules into ${dir} (first time only; ${buildApiServer ? 'about 5 minutes' : 'a minute or two'} on 2 cores)`,
  );
  if (buildApiServer) await buildOne(dir, apiServerStep, options, recordHelper);
  try {
    await buildOne(dir, etcdStep, options, recordHelper);
    return { kubeApiServer, etcd: cache.builtEtcd, etcdSource: 'go-build' };
  } catch (error) {
    return await fallBackToDebianEtcd(cache, error, options.onProgress);
  }
}

/**
 * After a failed etcd build: Debian's etcd-server, remembered in the fallback marker, when go
 * itself failed to build etcd (not a rename into the cache, not go killed, not a full disk) and it
 * is installed; otherwise the error is thrown.
 */
async function fallBackToDebianEtcd(
  cache: BinaryPaths,
  error: unknown,
  onProgress: BuildOptions['onProgress'],
): Promise<BuiltBinaries> {
  const { debianEtcd } = cache;
  const exit =
    error instanceof ControlPlaneError
      ? (error.details['goExit'] as GoExit | undefined)
      : undefined;
  if (exit === undefined || !etcdFallbackAllowed(exit)) throw error;
  if (!(await isExecutable(debianEtcd))) {
    throw new ControlPlaneError(
      'CONTROLPLANE_BUILD_FAILED',
      `etcd build failed and Debian's etcd-server is not installed at ${debianEtcd} (apt-get install etcd-server): ${(error as Error).message}`,
      { cause: error },
    );
  }
  onProgress?.(
    `voe: etcd build failed; falling back to Debian's etcd-server at ${debianEtcd} (older than the etcd Kubernetes ${KUBERNETES_VERSION} recommends)`,
  );
  await writeFile(cache.fallbackMarker, `${(error as Error).message}\n`);
  return { kubeApiServer: cache.kubeApiServer, etcd: debianEtcd, etcdSource: 'debian' };
}
