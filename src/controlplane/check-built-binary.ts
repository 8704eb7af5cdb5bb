import { execFile } from 'node:child_process';
import { ControlPlaneError } from './control-plane-error.js';
import type { BuildStep } from './build-recipe.js';

/**
 * Fails with CONTROLPLANE_BUILD_FAILED unless the binary go built at `path` runs here and says it
 * is what `step` builds (`--version`): go exits 0 for a binary this machine cannot run (a GOARCH,
 * GOAMD64 or GOEXPERIMENT of the user's go env), which must not be cached as a finished build.
 */
export async function checkBuiltBinary(path: string, step: BuildStep): Promise<void> {
  const said = await new Promise<{ lines: string[]; problem?: string }>((resolve) => {
    execFile(path, ['--version'], { env: {}, timeout: 60_000 }, (error, stdout, stderr) => {
      const text = `${stdout}${stderr}`.trim();
      // How it ended: an exit code (a binary the kernel cannot run is handed to /bin/sh, which fails), an errno, a signal.
      const ended =
        error === null
          ? undefined
          : error.signal
            ? `killed by ${error.signal}`
            : typeof error.code === 'number'
              ? `exit ${error.code}`
              : String(error.code ?? error.message);
      resolve({
        lines: stdout.split('\n').map((line) => line.trim()),
        ...(ended === undefined
          ? {}
          : { problem: `${ended}${text ? `, ${JSON.stringify(text.slice(0, 300))}` : ''}` }),
      });
    });
  });
  if (said.problem === undefined && said.lines.includes(step.versionLine)) return;
  throw new ControlPlaneError(
    'CONTROLPLANE_BUILD_FAILED',
    `the ${step.binary} go built does not run here as ${step.label} (${step.binary} --version: ${said.problem ?? JSON.stringify(said.lines.join(' ').trim().slice(0, 200))}); it was not cached. ` +
      'A go env setting for another machine (GOARCH, GOAMD64, GOEXPERIMENT: see `go env`) does this.',
  );
}
