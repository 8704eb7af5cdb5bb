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

const MiB = 1024 * 1024;

/**
 * The size KubeVirt gives a Filesystem-mode host PVC's disk.img, as possibleGuestSize
 * (pkg/virt-launcher/virtwrap/manager.go, v1.8) computes it:
 * align_down_1MiB((1 - filesystemOverhead) * min(usable, capacity)), where usable is disk.img's
 * allocation plus the free space of the PVC's filesystem, below the capacity by that
 * filesystem's own metadata.
 */
function possibleGuestSize(capacity: number, usable: number, filesystemOverhead: number): number {
  const size = Math.floor((1 - filesystemOverhead) * Math.min(usable, capacity));
  return size - (size % MiB);
}

/** A device at `before` for its first `slowReads` reads, then at `after` for good. */
function deviceGrowingTo(before: number, after: number, slowReads: number) {
  let reads = 0;
  return {
    identify: async (path: string) => ({ realPath: path }),
    sizeBytes: async () => (reads++ < slowReads ? before : after),
  };
}

/** The node's host: the host PVC with `volumeMode` at a capacity of 4 GiB. */
function hostWithPvc(volumeMode: 'Block' | 'Filesystem') {
  const pvc = {
    metadata: { name: VOLUME, namespace: 'default' },
    spec: { volumeMode, resources: { requests: { storage: '4Gi' } } },
    status: { capacity: { storage: '4Gi' } },
  };
  const host = { namespace: 'default', getPvc: async () => pvc };
  return { defaultHost: host, forSecrets: () => host };
}

describe('NodeExpandVolume: the size KubeVirt gives a Filesystem-mode host PVC', () => {
  // The host filesystem's metadata (ext4 on the 4 GiB host volume) keeps usable below capacity.
  const grown = possibleGuestSize(4 * GiB, 4 * GiB - 70 * MiB, 0.055);
  const fourGiB = {
    ...request,
    capacity_range: { required_bytes: String(4 * GiB), limit_bytes: '0' },
  } as NodeExpandVolumeRequest;

  function depsOf(volumeMode: 'Block' | 'Filesystem'): NodeDeps {
    return {
      ...depsWith(locatorWhoseLink(true)),
      devices: deviceGrowingTo(2 * GiB, grown, 3),
      hosts: hostWithPvc(volumeMode),
      timeouts: { deviceMs: 50, growMs: 500 },
    } as unknown as NodeDeps;
  }

  it('accepts a device grown to less than the capacity once two reads agree', async () => {
    assert.isBelow(grown, 4 * GiB);
    const answer = await expandVolume(depsOf('Filesystem'), fourGiB, ctx());
    assert.strictEqual(answer.capacity_bytes, String(grown));
  });

  it('of a Block-mode host PVC, still waits for the size asked for (UNAVAILABLE)', async () => {
    try {
      await expandVolume(depsOf('Block'), fourGiB, ctx());
      assert.fail('expected CSI_DEVICE_NOT_GROWN');
    } catch (error) {
      assert.isTrue(isCsiError(error, 'CSI_DEVICE_NOT_GROWN'), String(error));
      assert.strictEqual(grpcStatusOf(error).code, Status.UNAVAILABLE);
    }
  });

  it('a device that has not grown is not accepted, even when its reads agree', async () => {
    const deps = { ...depsOf('Filesystem'), devices: deviceGrowingTo(2 * GiB, 2 * GiB, 0) };
    try {
      await expandVolume(deps as unknown as NodeDeps, fourGiB, ctx());
      assert.fail('expected CSI_DEVICE_NOT_GROWN');
    } catch (error) {
      assert.isTrue(isCsiError(error, 'CSI_DEVICE_NOT_GROWN'), String(error));
    }
  });
});
