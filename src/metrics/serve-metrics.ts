import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Answers one GET path (e.g. /livez) of a metrics server. */
export type PlainRoute = (response: ServerResponse) => void;

/**
 * The handler of a plain-HTTP metrics server: GET /metrics answers `registry`'s text (500 when it
 * cannot be collected), GET of a path in `routes` answers what the route writes; any other method
 * is 405, any other path 404.
 */
export function metricsRequestHandler(
  registry: Registry,
  routes: Readonly<Record<string, PlainRoute>> = {},
): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const route = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (request.method !== 'GET') {
      response.writeHead(405, { Allow: 'GET' }).end();
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (error: unknown) =>
          response
            .writeHead(500, { 'Content-Type': 'text/plain' })
            .end(`metrics unavailable: ${String(error)}\n`),
      );
    } else if (route) {
      route(response);
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  };
}

/** Listens on `host`:`port` (0: a free port); resolves with the address and its http:// URL, rejects with the listen error. */
export function listenPlainHttp(
  server: Server,
  host: string,
  port: number,
): Promise<{ address: AddressInfo; url: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ address, url: `http://${shown}:${address.port}` });
    });
  });
}
