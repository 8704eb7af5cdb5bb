import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** The API server's /metrics text, read with the kubeconfig's credentials. */
async function metrics(kc: KubeConfig): Promise<string> {
  const url = new URL(`${kc.getCurrentCluster()!.server.replace(/\/+$/, '')}/metrics`);
  const options: https.RequestOptions = { method: 'GET' };
  await kc.applyToHTTPSOptions(options);
  const mod = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    mod
      .request(url, options, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(body)
            : reject(new Error(`GET /metrics: ${res.statusCode}`)),
        );
        res.on('error', reject);
      })
      .on('error', reject)
      .end();
  });
}

/** How many requests the API server has answered (apiserver_request_total) whose labels include all of `labels`. */
export async function requestCount(
  kc: KubeConfig,
  labels: Record<string, string>,
): Promise<number> {
  let total = 0;
  for (const line of (await metrics(kc)).split('\n')) {
    const match = /^apiserver_request_total\{([^}]*)\} ([0-9.e+]+)$/.exec(line);
    if (!match) continue;
    const found = Object.fromEntries(
      [...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) total += Number(match[2]);
  }
  return total;
}
