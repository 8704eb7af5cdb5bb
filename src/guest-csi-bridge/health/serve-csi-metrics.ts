import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { listenPlainHttp, metricsRequestHandler } from '../../metrics/index.js';
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
  const server = createServer(metricsRequestHandler(registry));
  let url: string;
  try {
    ({ url } = await listenPlainHttp(server, host, port));
  } catch (error) {
    throw new CsiError(
      'CSI_METRICS_LISTEN_FAILED',
      `cannot listen on ${host}:${port} for /metrics (${(error as Error).message}); pass a free --metrics-port`,
      { cause: error },
    );
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
