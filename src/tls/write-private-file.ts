import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a secret (a private key, a kubeconfig holding one) readable by its owner only: into a
 * new file created exclusively with mode 0600 beside the target, then renamed over it. A file
 * that was there (a reused directory: another mode, another owner, a descriptor someone still
 * holds open) is replaced, never rewritten in place, so the secret never reaches it.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const staged = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}`);
  const handle = await open(staged, 'wx', 0o600);
  try {
    try {
      await handle.chmod(0o600); // whatever the umask
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await rename(staged, path);
  } catch (error) {
    await rm(staged, { force: true });
    throw error;
  }
}
