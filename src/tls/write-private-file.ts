import { open } from 'node:fs/promises';

/**
 * Writes a secret (a private key, a kubeconfig holding one) readable by its owner only: the file
 * is made mode 0600 before any byte is written, also when it exists already with a wider mode (a
 * reused directory), so the secret is never readable by others, not even for a moment.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w', 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}
