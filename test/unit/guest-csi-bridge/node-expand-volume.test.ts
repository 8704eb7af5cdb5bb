import { describe, it } from 'mocha';
import { assert } from 'chai';
import { tmpdir } from 'node:os';
import { status as Status } from '@grpc/grpc-js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { grpcStatusOf } from '../../../src/guest-csi-bridge/errors/grpc-status-of.js';
import type { DeviceLocator } from '../../../src/guest-csi-bridge/node/device-locator.js';
import { expandVolume } from '../../../src/guest-csi-bridge/node/expand-volume.js';
import type { NodeDeps } from '../../../src/guest-csi-bridge/node/node-deps.js';
import type { NodeExpandVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const GiB = 1024 * 1024 * 1024;
const VOLUME = 'pvc-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';

/**
 * A by-id directory whose link is missing (udev re-creating it): find sees nothing; waitFor
 * resolves with the device once `appears` says so, else when its signal aborts, with nothing.
 */
function locatorWhoseLink(appears: boolean): DeviceLocator {
  return {
    find: async () => undefined,
    waitFor: (_volumeId, signal) =>
      appears
        ? Promise.resolve('/dev/sdb')
        : new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined))),
  };
}

function depsWith(locator: DeviceLocator): NodeDeps {
  return {
    nodeId: 'guest-node-1',
    defaultFsType: 'ext4',
    locator,
    devices: {
      identify: async (path: string) => ({ realPath: path }),
      sizeBytes: async () => 2 * GiB,
    },
    rescanner: { rescan: async () => false },
    hosts: undefined,
    locks: new VolumeLocks(),
    timeouts: { deviceMs: 50, growMs: 50 },
  } as unknown as NodeDeps;
}

const request = {
  volume_id: VOLUME,
  volume_path: tmpdir(),
  capacity_range: { required_bytes: String(2 * GiB), limit_bytes: '0' },
  volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
  secrets: {},
} as unknown as NodeExpandVolumeRequest;

const ctx = () => ({
  signal: new AbortController().signal,
  deadline: undefined,
  log: captureLogger().logger,
});

describe('NodeExpandVolume: a by-id link that is briefly missing', () => {
  it('is waited for: the expansion goes on once it is back', async () => {
    const answer = await expandVolume(depsWith(locatorWhoseLink(true)), request, ctx());
    assert.strictEqual(answer.capacity_bytes, String(2 * GiB));
  });

  it('still missing after the wait: UNAVAILABLE (kubelet retries), not NOT_FOUND (final)', async () => {
    try {
      await expandVolume(depsWith(locatorWhoseLink(false)), request, ctx());
      assert.fail('expected CSI_DEVICE_NOT_VISIBLE');
    } catch (error) {
      assert.isTrue(isCsiError(error, 'CSI_DEVICE_NOT_VISIBLE'), String(error));
      assert.strictEqual(grpcStatusOf(error).code, Status.UNAVAILABLE);
    }
  });
});
