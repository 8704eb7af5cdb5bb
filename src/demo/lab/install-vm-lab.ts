import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { VmLabError } from './vm-lab-error.js';

/** The project's installer, in the package next to dist/ (package.json "files"). */
export function installerPath(): string {
  return fileURLToPath(new URL('../../../../scripts/install-test-deps.sh', import.meta.url));
}

/**
 * Runs the project's installer for the VM lab (`bash scripts/install-test-deps.sh vm`: Debian's
 * QEMU, libvirt and its client when missing, the guest's packages unpacked into the cache), its
 * output going to this process's stderr. `cacheDir` becomes its VOE_CACHE_DIR.
 */
export async function installVmLab(cacheDir: string): Promise<void> {
  const script = installerPath();
  if (
    !(await stat(script).then(
      () => true,
      () => false,
    ))
  )
    throw new VmLabError('VMLAB_INSTALL_FAILED', `the installer ${script} is not in this package`);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('bash', [script, 'vm'], {
      stdio: ['ignore', process.stderr, process.stderr],
      env: { ...process.env, VOE_CACHE_DIR: cacheDir },
    });
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  }).catch((error: unknown) => {
    throw new VmLabError(
      'VMLAB_INSTALL_FAILED',
      `bash ${script} vm could not start: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  });
  if (code !== 0)
    throw new VmLabError(
      'VMLAB_INSTALL_FAILED',
      `bash ${script} vm failed (exit ${code ?? 'by a signal'}); its output is above`,
    );
}
