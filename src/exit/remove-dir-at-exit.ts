import { rmSync } from 'node:fs';

const dirs = new Set<string>();
let exitListenerInstalled = false;

/**
 * Removes every directory registered with removeDirAtExit, now (synchronously: the process is
 * exiting). Called on exit and by a signal handler that ends the process before normal clean-ups
 * can run (src/controlplane's, after it killed the processes that used them). Never throws.
 */
export function removeRegisteredDirs(): void {
  for (const dir of dirs) {
    // A process killed just before may still be closing its files: retry briefly, and keep what
    // could not be removed for a later call (e.g. after the processes using it are killed).
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      dirs.delete(dir);
    } catch {
      /* left for a later call, or the OS's tmp cleaning */
    }
  }
}

/**
 * A temporary directory (a control plane's etcd data, a dev webhook's certificate and key) removed
 * when the process exits without its normal clean-up (a crash, a signal), so nothing of it, secrets
 * included, is left behind. Returns the undo, for the normal clean-up that removes it itself.
 */
export function removeDirAtExit(dir: string): () => void {
  if (!exitListenerInstalled) {
    exitListenerInstalled = true;
    process.on('exit', removeRegisteredDirs);
  }
  dirs.add(dir);
  return () => {
    dirs.delete(dir);
  };
}
