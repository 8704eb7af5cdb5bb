import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { sumSamples } from './sum-samples.js';

/** The API server's /metrics (Prometheus text), read with the kubeconfig's credentials. */
export async function apiServerMetrics(kc: KubeConfig): Promise<string> {
  const url = new URL(`${kc.getCurrentCluster()!.server.replace(/\/+$/, '')}/metrics`);
  const options: https.RequestOptions = { method: 'GET' };
  await kc.applyToHTTPSOptions(options);
  const mod = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    mod
      .request(url, options, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`GET /metrics: ${res.statusCode} ${body.slice(0, 200)}`)),
        );
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });
}

/** How many requests the API server has answered (apiserver_request_total) with all of `labels`. */
export async function apiServerRequests(
  kc: KubeConfig,
  labels: Record<string, string>,
): Promise<number> {
  return sumSamples(await apiServerMetrics(kc), 'apiserver_request_total', labels);
}
