import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlPlaneError } from '../control-plane-error.js';

/**
 * `go mod download -json module@version` (through the module proxy, into go's module cache), run
 * outside any module; resolves with the directory go extracted the module to (read-only).
 */
export async function downloadGoModule(
  module: string,
  version: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const outside = await mkdtemp(join(tmpdir(), 'voe-go-download-'));
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        'go',
        ['mod', 'download', '-json', `${module}@${version}`],
        {
          cwd: outside,
          env: { ...env, GOFLAGS: '-mod=mod' },
          maxBuffer: 1 << 22,
          timeout: 900_000,
        },
        (error, out, stderr) => {
          // go prints the JSON (with an Error field) on stdout also when the download failed.
          const parsed = parse(out);
          if (parsed?.Dir && !error) resolve(parsed.Dir);
          else
            reject(
              new ControlPlaneError(
                'CONTROLPLANE_BUILD_FAILED',
                `go mod download ${module}@${version} failed: ${parsed?.Error ?? (stderr.trim() || String(error))}`,
                { cause: error },
              ),
            );
        },
      );
    });
    return stdout;
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
}

function parse(text: string): { Dir?: string; Error?: string } | undefined {
  try {
    return JSON.parse(text) as { Dir?: string; Error?: string };
  } catch {
    return undefined;
  }
}
