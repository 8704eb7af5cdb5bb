import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/index.js';
import type { Registry } from 'prom-client';
import { continueUnlessAborted } from './continue-unless-aborted.js';
import { createWebhookServer, type WebhookServer } from './create-webhook-server.js';
import type { StartedCaches } from './started-caches.js';
import type { StartUpCleanups } from './start-up-cleanups.js';
import { urlHost } from './url-host.js';
import type { Validator } from '../admission/index.js';

/**
 * Builds the validators on the started caches and serves them over HTTPS on host:port (closed by
 * the cleanups); resolves with the server, its bound address and the URL it answers on.
 */
export async function listenWebhook<C>(options: {
  started: StartedCaches<C>;
  createValidators: (caches: C, options: { logger: Logger }) => Validator[];
  tls: { certFile: string; keyFile: string };
  host: string;
  port: number;
  registry: Registry | undefined;
  cleanups: StartUpCleanups;
  logger: Logger;
  signal: AbortSignal | undefined;
}): Promise<{ server: WebhookServer; address: AddressInfo; url: string }> {
  const { started, logger: log } = options;
  const validators = options.createValidators(started.caches, { logger: log });
  const server = createWebhookServer({
    validators,
    tls: options.tls,
    ready: () => started.ready(),
    logger: log,
    cacheStatus: () => ({
      unsynced: started.unsynced(),
      notServed: started.notServed(),
      notRead: started.notRead?.() ?? [],
    }),
    ...(options.registry ? { registry: options.registry } : {}),
  });
  const address = await server.listen(options.port, options.host);
  options.cleanups.add({
    run: () => server.close(),
    left: (why) => `Could not close the webhook server cleanly: ${why}.`,
  });
  continueUnlessAborted(options.signal);
  return { server, address, url: `https://${urlHost(address.address)}:${address.port}` };
}
