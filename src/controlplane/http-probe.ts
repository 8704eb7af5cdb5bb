import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface TlsClient {
  ca: string;
  cert: string;
  key: string;
}

/** GET `url`; resolves the status code (0 on a connection error). Never rejects. */
export function probe(url: string, tls?: TlsClient, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      target,
      { method: 'GET', timeout: timeoutMs, agent: false, ...(tls ?? {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}
