import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeClientConfig } from '../../../src/kube/index.js';
import { startCsiDriver } from '../../../src/guest-csi-bridge/index.js';
import type {
  CsiDriver,
  CsiDriverOptions,
} from '../../../src/guest-csi-bridge/start-csi-driver.js';
import type { Logger } from '../../../src/log/index.js';
import { createCsiClient, type CsiClient } from './csi-client.js';
import { GUEST_NODE } from './host-scene.js';

export interface TestDriver {
  driver: CsiDriver;
  client: CsiClient;
  socket: string;
  stop(): Promise<void>;
}

/** `voe csi`'s driver in this process, on a socket in a new temporary directory, with a client. */
export async function startTestDriver(
  hostKubeConfig: KubeClientConfig,
  deviceDirectory: string,
  log: Logger,
  options: Partial<CsiDriverOptions> = {},
): Promise<TestDriver> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-csi-sock-'));
  const socket = join(dir, 'csi.sock');
  const driver = await startCsiDriver({
    endpoint: `unix://${socket}`,
    vendorVersion: 'test',
    hostKubeConfig,
    nodeId: GUEST_NODE,
    deviceDirectory,
    log,
    ...options,
  });
  const client = createCsiClient(socket);
  return {
    driver,
    client,
    socket,
    async stop() {
      client.close();
      await driver.stop(1_000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
