import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testCacheDir } from './use-control-plane.js';

/**
 * Builds the Go program in `source` (a module of its own: main.go, go.mod, go.sum) with
 * `go build` through the module proxy into the test cache (testCacheDir()/bin), as
 * `<name>-<hash>`, the hash taken over those three files: the first run builds, later ones reuse
 * the binary. Resolves with its path.
 */
export async function buildGoProgram(name: string, source: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum'])
    hash.update(`${file}\0`).update(await readFile(join(source, file)));
  const dir = join(testCacheDir(), 'bin');
  const binary = join(dir, `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (
    await access(binary, constants.X_OK).then(
      () => true,
      () => false,
    )
  )
    return binary;
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
