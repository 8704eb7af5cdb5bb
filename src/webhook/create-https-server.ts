import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { Logger } from '../log/index.js';
import type { RequestHandler } from './route-webhook-request.js';

/**
 * The webhook's node:https server (not listening yet): TLS 1.2 or later with `pair`, timeouts for
 * the API server's keep-alive, every TCP connection tracked in `connections` (for close), failed
 * handshakes and malformed requests logged at debug and dropped.
 */
export function createHttpsServer(options: {
  pair: { cert: string; key: string };
  handshakeTimeoutMs: number | undefined;
  route: RequestHandler;
  connections: Set<Socket>;
  logger: Logger;
}): Server {
  const { connections, logger: log } = options;
  const https = createServer(
    {
      cert: options.pair.cert,
      key: options.pair.key,
      minVersion: 'TLSv1.2',
      ...(options.handshakeTimeoutMs === undefined
        ? {}
        : { handshakeTimeout: options.handshakeTimeoutMs }),
    },
    options.route,
  );
  // Every TCP connection, from its first byte: one still in its TLS handshake is no HTTP
  // connection yet, and closeAllConnections() does not reach it (a port scan or a stalled
  // client would keep close() waiting for ever).
  https.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  // The API server keeps connections to webhooks alive and drops them after 90 s idle (Go's
  // IdleConnTimeout, set by k8s.io/apimachinery's SetTransportDefaults). Its timer starts when it
  // has read an answer, ours when we wrote it: with the same 90 s we would close first, racing
  // with a request already on its way (Go does not retry a POST). A little longer lets it close first.
  https.keepAliveTimeout = 95_000;
  https.headersTimeout = 32_000;
  https.requestTimeout = 60_000;
  https.on('tlsClientError', (error) =>
    log.debug({ error: error.message }, 'TLS handshake failed'),
  );
  https.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') {
      // Nothing can be answered over a connection without TLS: drop it (ending it would leave it half-closed).
      log.debug({ error: error.message }, 'TLS handshake timed out');
      socket.destroy();
      return;
    }
    log.debug({ error: error.message }, 'malformed HTTP request');
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return https;
}

/** Listens on host:port; rejects with the server's error (e.g. EADDRINUSE). */
export function listenOn(https: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    https.once('error', reject);
    https.listen(port, host, () => {
      https.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops listening, closes idle connections and waits for the others to close after their answer;
 * those (and connections still in their handshake) still open after 5 s are destroyed.
 */
export function closeHttpsServer(https: Server, connections: ReadonlySet<Socket>): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      https.closeAllConnections();
      for (const socket of connections) socket.destroy();
    }, 5_000);
    force.unref();
    https.close(() => {
      clearTimeout(force);
      resolve();
    });
    https.closeIdleConnections();
  });
}
