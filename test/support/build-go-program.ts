import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { goBuildEnv } from '../../src/controlplane/go-build-env.js';
import { runGo } from '../../src/controlplane/run-go.js';
import { acquireLockFile } from '../../src/lock/index.js';
import { testCacheDir } from './use-control-plane.js';

/**
 * The Go programs the tests build, each cached under testCacheDir()/bin so that only the first
 * run builds it: a program of the tests' own (`buildGoProgram`: `go build` of a local module) and
 * a released tool (`installGoTool`: `go install <package>@<version>`). Both fetch their modules
 * through the Go module proxy.
 */

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Builds the Go program in `source` (a module of its own: main.go, go.mod, go.sum) with
 * `go build` into the test cache (testCacheDir()/bin), as `<name>-<hash>`, the hash taken over
 * those three files. Resolves with its path.
 */
export async function buildGoProgram(name: string, source: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum'])
    hash.update(`${file}\0`).update(await readFile(join(source, file)));
  const dir = join(testCacheDir(), 'bin');
  const binary = join(dir, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (await executable(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  try {
    await promisify(execFile)('go', ['build', '-trimpath', '-o', tmp, '.'], {
      cwd: source,
      env: {
        ...process.env,
        CGO_ENABLED: '0',
        GOTOOLCHAIN: 'local',
        GOFLAGS: '-mod=readonly',
        GOWORK: 'off',
      },
      maxBuffer: 1 << 24,
    });
    await rename(tmp, binary); // atomic: a parallel build only wastes its time
  } finally {
    await rm(tmp, { force: true });
  }
  return binary;
}

/** A released Go tool: the main package of a versioned module. */
export interface GoTool {
  /** The binary's name: the last element of `pkg`. */
  name: string;
  /** The main package, e.g. helm.sh/helm/v3/cmd/helm. */
  pkg: string;
  /** The module version, e.g. v3.22.0. */
  version: string;
  /** -ldflags for `go install` (e.g. the version stamps a release Makefile sets with -X). */
  ldflags?: string;
}

export interface InstallGoToolOptions {
  /** The cache directory (default: testCacheDir()). */
  cacheDir?: string;
  env?: NodeJS.ProcessEnv;
  onProgress?: (line: string) => void;
}

/** Where `tool` is cached: `<cacheDir>/bin/<name>-<version>/`, beside the control plane's binaries. */
export function goToolDir(tool: GoTool, cacheDir = testCacheDir()): string {
  return join(cacheDir, 'bin', `${tool.name}-${tool.version}`);
}

/**
 * The path of `tool`, built first when it is not cached: `go install <pkg>@<version>` (a minute
 * or two on 2 cores with a warm module cache, several with a cold one) into a temporary GOBIN,
 * then renamed into goToolDir(). One build at a time across processes (a lock file in that
 * directory); a process that finds it built meanwhile uses it.
 */
export async function installGoTool(
  tool: GoTool,
  options: InstallGoToolOptions = {},
): Promise<string> {
  const dir = goToolDir(tool, options.cacheDir);
  const binary = join(dir, tool.name);
  if (await executable(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const release = await lockToolBuild(tool, dir, options.onProgress);
  try {
    if (!(await executable(binary)))
      await goInstallInto(tool, dir, binary, { ...options, onStarted: release.recordHelper });
    return binary;
  } finally {
    await release();
  }
}

/** Takes the build lock of `dir` (waiting up to 30 minutes for another process's build). */
function lockToolBuild(
  tool: GoTool,
  dir: string,
  onProgress: ((line: string) => void) | undefined,
): ReturnType<typeof acquireLockFile> {
  return acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 30 * 60_000,
    pollMs: 500,
    busy: (pid) =>
      new Error(`process ${pid} has been building ${tool.name} in ${dir} for 30 minutes`),
    cannotCreate: (code) => new Error(`cannot create the build lock in ${dir} (${code})`),
    onWait: (pid) => onProgress?.(`process ${pid} is building ${tool.name}; waiting for it`),
  });
}

/**
 * Runs `go install` into a GOBIN of this process under `dir` (go's pid goes to `onStarted`, for
 * the build lock) and moves the binary to `binary`.
 */
async function goInstallInto(
  tool: GoTool,
  dir: string,
  binary: string,
  options: InstallGoToolOptions & { onStarted: (pid: number) => void },
): Promise<void> {
  const gobin = join(dir, `.gobin-${process.pid}`);
  await rm(gobin, { recursive: true, force: true });
  options.onProgress?.(
    `building ${tool.name} ${tool.version} from Go modules into ${dir} (first time only)`,
  );
  const ldflags = tool.ldflags ? ['-ldflags', tool.ldflags] : [];
  try {
    await runGo(['install', '-trimpath', ...ldflags, `${tool.pkg}@${tool.version}`], {
      env: { ...goBuildEnv(options.env ?? process.env), GOBIN: gobin },
      label: `${tool.name} ${tool.version}`,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onStarted: options.onStarted,
    });
    await rename(join(gobin, tool.name), binary);
  } finally {
    await rm(gobin, { recursive: true, force: true });
  }
}
