import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { removeDirAtExit } from '../exit/index.js';
import { makeDirectories } from '../files/index.js';
import { ensureNoEarlierProcesses } from './ensure-no-earlier-processes.js';
import { makeOwnedTempDir } from './make-owned-temp-dir.js';
import { removeAbandonedControlPlanes } from './remove-abandoned-control-planes.js';

/** The directory a control plane works in, and how to remove it when it is its own. */
export interface ControlPlaneDir {
  /** Absolute, so that the processes' command lines name it as `voe cluster stop` and ensureNoEarlierProcesses look for it. */
  dir: string;
  /** Removes a temporary directory of its own (nothing for a given one). */
  removeOwnDir(): Promise<void>;
}

/**
 * The given directory, or a new temporary one of its own (removed at exit unless removed before).
 * Before making one, removes the temporary control planes whose owner was killed with SIGKILL
 * (their etcd and kube-apiserver run on, and nothing else would ever find them). In a given
 * directory, before anything in it changes, refuses to overwrite the pid files (or certificates)
 * of an earlier control plane's etcd or kube-apiserver that still runs there (its supervisor was
 * killed).
 */
export async function prepareControlPlaneDir(
  given: string | undefined,
  onProgress?: (line: string) => void,
): Promise<ControlPlaneDir> {
  if (given !== undefined) {
    const dir = resolve(given);
    await ensureNoEarlierProcesses(dir);
    await makeDirectories(dir);
    return { dir, removeOwnDir: async () => undefined };
  }
  for (const removed of await removeAbandonedControlPlanes())
    onProgress?.(
      `voe: removed ${removed} and stopped its etcd and kube-apiserver: its owner was killed`,
    );
  const dir = await makeOwnedTempDir();
  const forgetDirAtExit = removeDirAtExit(dir);
  await makeDirectories(dir);
  return {
    dir,
    removeOwnDir: async () => {
      await rm(dir, { recursive: true, force: true });
      forgetDirAtExit();
    },
  };
}
