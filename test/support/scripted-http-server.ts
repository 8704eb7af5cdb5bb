import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A plain-HTTP server answering with `handle`, to play an API server in the ways a real one only
 * rarely answers (a spurious 404, a malformed watch event), and a KubeConfig pointing at it.
 * Closed after the test.
 */
export async function scriptedHttpServer(
  t: { after: (fn: () => Promise<void>) => void },
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<KubeConfig> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'scripted', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'scripted' }], contexts: [{ name: 'scripted', cluster: 'scripted', user: 'scripted' }], currentContext: 'scripted',
  });
  return kubeConfig;
}
