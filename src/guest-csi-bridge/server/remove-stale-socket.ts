import { lstat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { CsiError } from '../errors/csi-error.js';

/** Whether a process accepts connections on the unix socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Makes `path` free for a new socket: a socket nobody serves (left by a driver that was killed)
 * is removed; a socket someone serves is CSI_ENDPOINT_IN_USE, and anything else than a socket is
 * CSI_ENDPOINT_INVALID (never removed).
 */
export async function removeStaleSocket(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isSocket())
    throw new CsiError(
      'CSI_ENDPOINT_INVALID',
      `${path} exists and is not a socket; choose another --endpoint or remove it`,
    );
  if (await answers(path))
    throw new CsiError(
      'CSI_ENDPOINT_IN_USE',
      `another process serves ${path}; stop it first or choose another --endpoint`,
    );
  await unlink(path);
}
