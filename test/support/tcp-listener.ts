import { assert } from 'chai';
import { createServer, type Socket } from 'node:net';
import { onCleanup } from './cleanup.js';

/**
 * A TCP server on 127.0.0.1 that hands each connection to `onConnection` (by default: keeps it
 * open and never answers, as an API server that accepts connections but hangs); closed, with its
 * connections, after the test. Resolves with its port.
 */
export async function listenTcp(
  onConnection: (socket: Socket) => void = () => undefined,
): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}
