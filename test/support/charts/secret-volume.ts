import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'node:tls';

let generation = 0;

/**
 * Writes `data` into `dir` the way the kubelet updates a mounted Secret: the files go into a new
 * timestamped directory, `..data` is swapped to it atomically (a rename of a symlink), and each
 * key is a symlink through `..data`; the directory it replaced is removed.
 */
export async function writeSecretVolume(dir: string, data: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  const name = `..${new Date().toISOString().replace(/[:.]/g, '_')}.${process.pid}.${++generation}`;
  await mkdir(join(dir, name));
  for (const [key, value] of Object.entries(data))
    await writeFile(join(dir, name, key), value, { mode: 0o440 });
  const tmp = join(dir, '..data_tmp');
  await rm(tmp, { force: true });
  await symlink(name, tmp);
  const previous = await readlink(join(dir, '..data')).catch(() => undefined);
  await rename(tmp, join(dir, '..data'));
  for (const key of Object.keys(data)) {
    await symlink(join('..data', key), join(dir, key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  if (previous && previous !== name)
    await rm(join(dir, previous), { recursive: true, force: true });
}

/** The certificate a TLS server on 127.0.0.1:port presents for `servername`, verified against `ca` (throws when it does not verify). */
export function servedCertificate(
  port: number,
  ca: string,
  servername: string,
): Promise<{ serialNumber: string; validTo: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      resolve({ serialNumber: certificate.serialNumber, validTo: certificate.valid_to });
    });
    socket.on('error', reject);
  });
}
