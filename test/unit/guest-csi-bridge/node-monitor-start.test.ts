import { describe, it } from 'mocha';
import { assert } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { startCsiDriver } from '../../../src/guest-csi-bridge/index.js';
import { LeanKubeConfig } from '../../../src/kube/index.js';
import { captureLogger } from '../../support/capture-logger.js';
import { expectRejection } from '../../support/expect-error.js';

describe('guest CSI bridge: the node monitor at start-up', () => {
  it('is refused in a node-only process, before anything is served', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-csi-monitor-'));
    try {
      const socket = join(dir, 'csi.sock');
      const guest = new LeanKubeConfig({
        clusters: [{ name: 'g', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
        users: [{ name: 'u' }],
        contexts: [{ name: 'c', cluster: 'g', user: 'u' }],
        currentContext: 'c',
      });
      await expectRejection(
        startCsiDriver({
          endpoint: `unix://${socket}`,
          vendorVersion: 'test',
          services: 'node',
          hostKubeConfig: undefined,
          nodeMonitor: { guest, leaseNamespace: 'kube-system' },
          log: captureLogger().logger,
        }),
        (error: unknown) => isCsiError(error, 'CSI_NODE_MONITOR_NEEDS_CONTROLLER'),
      );
      assert.isFalse(existsSync(socket), 'no socket served');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
