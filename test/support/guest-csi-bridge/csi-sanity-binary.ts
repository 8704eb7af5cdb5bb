import { access, constants, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultCacheDir } from '../../../src/cli/cache-dir.js';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';
import { runGo } from '../../../src/controlplane/run-go.js';
import { acquireLockFile } from '../../../src/lock/index.js';

/** The csi-sanity release the tests run (reference/control-plane.md "CSI tools from Go modules"). */
export const CSI_SANITY_VERSION = 'v5.4.0';
export const CSI_SANITY_PACKAGE = 'github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity';

/** Where the built csi-sanity is cached, outside any clone (beside the control plane's binaries). */
export function csiSanityDir(cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'bin', `csi-sanity-${CSI_SANITY_VERSION}`);
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * The path of csi-sanity, built first when it is not cached: `go install <package>@<version>`
 * (the Go module proxy; about a minute on 2 cores, several with a cold module cache) into a
 * temporary GOBIN, then renamed into the cache. One build at a time across processes (a lock file
 * in the cache directory); a test process that finds it built uses it.
 */
export async function ensureCsiSanity(
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv; onProgress?: (line: string) => void } = {},
): Promise<string> {
  const dir = csiSanityDir(options.cacheDir);
  const binary = join(dir, 'csi-sanity');
  if (await executable(binary)) return binary;
  await mkdir(dir, { recursive: true });
  const release = await acquireLockFile(join(dir, '.build.lock'), {
    deadline: Date.now() + 30 * 60_000,
    pollMs: 500,
    busy: (pid) =>
      new Error(`process ${pid} has been building csi-sanity in ${dir} for 30 minutes`),
    cannotCreate: (code) => new Error(`cannot create the build lock in ${dir} (${code})`),
    onWait: (pid) => options.onProgress?.(`process ${pid} is building csi-sanity; waiting for it`),
  });
  try {
    if (await executable(binary)) return binary;
    const gobin = join(dir, `.gobin-${process.pid}`);
    await rm(gobin, { recursive: true, force: true });
    options.onProgress?.(
      `building csi-sanity ${CSI_SANITY_VERSION} from Go modules into ${dir} (first time only)`,
    );
    try {
      await runGo(['install', `${CSI_SANITY_PACKAGE}@${CSI_SANITY_VERSION}`], {
        env: { ...goBuildEnv(options.env ?? process.env), GOBIN: gobin },
        label: `csi-sanity ${CSI_SANITY_VERSION}`,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        onStarted: release.recordHelper,
      });
      await rename(join(gobin, 'csi-sanity'), binary);
    } finally {
      await rm(gobin, { recursive: true, force: true });
    }
    return binary;
  } finally {
    await release();
  }
}
