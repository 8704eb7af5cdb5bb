import { execFile } from 'node:child_process';
import { access, chmod, constants, cp, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeDirectories } from '../../files/index.js';
import { acquireLockFile, type ReleaseLockFile } from '../../lock/index.js';
import { BUILD_FLAGS } from '../build-recipe.js';
import { ControlPlaneError } from '../control-plane-error.js';
import { goBuildEnv } from '../go-build-env.js';
import { removeBuildLeftovers } from '../remove-build-leftovers.js';
import { runGo } from '../run-go.js';
import { downloadGoModule } from './download-go-module.js';
import { guestToolsModuleDir } from './guest-tools-module-dir.js';
import { guestToolKey, type GuestTool } from './guest-tool-recipe.js';

export interface BuildGuestToolOptions {
  cacheDir: string;
  onProgress?: (line: string) => void;
  /** Environment for `go` (PATH, HOME, GOCACHE...). */
  env?: NodeJS.ProcessEnv;
}

/** Where `tool` is cached: `<cacheDir>/bin/<binary>-<version>-<recipe key>/<binary>`. */
export function guestToolPath(tool: GuestTool, cacheDir: string): string {
  return join(
    resolve(cacheDir),
    'bin',
    `${tool.binary}-${tool.version}-${guestToolKey(tool)}`,
    tool.binary,
  );
}

async function isExecutable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The path of `tool`, built first when it is not in the cache (the control plane's build
 * machinery: one build at a time across processes under a lock file, what an interrupted build
 * left removed, the binary checked with `--version` before it is renamed into place).
 */
export async function buildGuestTool(
  tool: GuestTool,
  options: BuildGuestToolOptions,
): Promise<string> {
  const binary = guestToolPath(tool, options.cacheDir);
  if (await isExecutable(binary)) return binary;
  const dir = join(binary, '..');
  await makeDirectories(dir);
  const release = await lockBuild(tool, dir, options.onProgress);
  try {
    if (await isExecutable(binary)) return binary;
    await removeLeftovers(dir);
    options.onProgress?.(
      `voe: building ${tool.binary} ${tool.version} from Go modules into ${dir} (first time only)`,
    );
    await buildInto(tool, binary, options, release.recordHelper);
    return binary;
  } finally {
    await release();
  }
}

function lockBuild(
  tool: GuestTool,
  dir: string,
  onProgress: BuildGuestToolOptions['onProgress'],
): Promise<ReleaseLockFile> {
  return acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 60 * 60_000,
    pollMs: 500,
    busy: (pid) =>
      new ControlPlaneError(
        'CONTROLPLANE_BUILD_FAILED',
        `process ${pid} has been building ${tool.binary} in ${dir} for an hour; stop it or remove ${join(dir, '.build.lock')}`,
      ),
    cannotCreate: (code, cause) =>
      new ControlPlaneError(
        'CONTROLPLANE_BUILD_FAILED',
        `cannot create the build lock in ${dir} (${code}); check that the cache directory is writable or set VOE_CACHE_DIR`,
        { cause },
      ),
    onWait: (pid) => onProgress?.(`voe: process ${pid} is building ${tool.binary}; waiting for it`),
  });
}

/** What interrupted builds leave: outputs never renamed, module copies, go's work directory. */
function removeLeftovers(dir: string): Promise<void> {
  return removeBuildLeftovers(
    dir,
    (name) => /\.tmp-\d+$/.test(name) || /^\.src-\d+$/.test(name) || name === '.go-tmp',
  );
}

/** Builds `tool` under a temporary name beside `binary`, checks it, and renames it into place. */
async function buildInto(
  tool: GuestTool,
  binary: string,
  options: BuildGuestToolOptions,
  recordHelper: (pid: number) => void,
): Promise<void> {
  const dir = join(binary, '..');
  const tmp = `${binary}.tmp-${process.pid}`;
  const goTmp = join(dir, '.go-tmp');
  const source = join(dir, `.src-${process.pid}`);
  const env = { ...goBuildEnv(options.env ?? process.env), GOTMPDIR: goTmp };
  try {
    await makeDirectories(goTmp);
    const cwd = tool.module ? await copyModule(tool, source, env) : guestToolsModuleDir();
    await runGo(['build', ...BUILD_FLAGS, '-o', tmp, '-ldflags', tool.ldflags, tool.pkg], {
      env,
      label: `${tool.binary} ${tool.version}`,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      onStarted: recordHelper,
      cwd,
    });
    await checkVersion(tmp, tool);
    await rename(tmp, binary);
  } finally {
    await rm(tmp, { force: true });
    await rm(goTmp, { recursive: true, force: true });
    await rm(source, { recursive: true, force: true });
  }
}

/** Downloads the tool's module and copies it to `source`, its directories writable (go's module cache is read-only). */
async function copyModule(
  tool: GuestTool,
  source: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const extracted = await downloadGoModule(tool.module!, tool.version, env);
  await cp(extracted, source, { recursive: true });
  for (const nested of tool.nested ?? [])
    await cp(await downloadGoModule(nested.module, tool.version, env), join(source, nested.dir), {
      recursive: true,
    });
  await chmod(source, 0o755);
  for (const entry of await readdir(source, { recursive: true, withFileTypes: true }))
    if (entry.isDirectory()) await chmod(join(entry.parentPath, entry.name), 0o755);
  return source;
}

/** Fails unless `<path> --version` (or the tool's versionArgs) runs and prints a line ending as the tool's release says. */
async function checkVersion(path: string, tool: GuestTool): Promise<void> {
  const output = await new Promise<string>((resolve) => {
    execFile(
      path,
      [...(tool.versionArgs ?? ['--version'])],
      { env: {}, timeout: 60_000 },
      (error, stdout, stderr) => resolve(error ? `${String(error.message)} ${stderr}` : stdout),
    );
  });
  if (output.split('\n').some((line) => line.trim().endsWith(tool.versionSuffix))) return;
  throw new ControlPlaneError(
    'CONTROLPLANE_BUILD_FAILED',
    `the ${tool.binary} go built does not run here as ${tool.binary} ${tool.version} (${(tool.versionArgs ?? ['--version']).join(' ')}: ${JSON.stringify(output.trim().slice(0, 200))}); it was not cached`,
  );
}
