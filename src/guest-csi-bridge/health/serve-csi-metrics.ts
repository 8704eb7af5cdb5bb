import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { CsiError } from '../errors/csi-error.js';

export interface CsiMetricsServer {
  /** http://host:port of /metrics. */
  url: string;
  stop(): Promise<void>;
}

/** Serves `registry` at GET /metrics on `host`:`port` (0: a free port); CSI_METRICS_LISTEN_FAILED when it cannot listen. */
export async function serveCsiMetrics(
  registry: Registry,
  host: string,
  port: number,
): Promise<CsiMetricsServer> {
  const server = createServer(metricsHandler(registry));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw new CsiError(
      'CSI_METRICS_LISTEN_FAILED',
      `cannot listen on ${host}:${port} for /metrics (${(error as Error).message}); pass a free --metrics-port`,
      { cause: error },
    );
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The handler of GET /metrics. */
function metricsHandler(
  registry: Registry,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const path = (request.url ?? '').split('?')[0];
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
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  };
}
