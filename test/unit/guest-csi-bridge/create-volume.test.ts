import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  DEFAULT_CONTROLLER_TIMEOUTS,
  type ControllerDeps,
} from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import { createVolume } from '../../../src/guest-csi-bridge/controller/create-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import type { HostPvc } from '../../../src/guest-csi-bridge/host/host-objects.js';
import type { CreateVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const Gi = 1024n * 1024n * 1024n;
const NAME = 'pvc-7d1f0c2a-8b3e-4f5a-9c6d-0e1f2a3b4c5d';

/** A host where the PVC `existing` is already there (createPvc answers it, as the API server's 409 then GET would). */
function hostWith(existing: HostPvc): HostApi {
  return {
    namespace: 'guests',
    createPvc: async () => ({ created: false, existing }),
    getStorageClass: async () => undefined,
  } as unknown as HostApi;
}

function depsFor(host: HostApi): ControllerDeps {
  return {
    hosts: { defaultHost: host, forSecrets: () => host },
    hostStorageClass: undefined,
    settingName: 'csi-online-expand-validation',
    locks: new VolumeLocks(),
    timeouts: DEFAULT_CONTROLLER_TIMEOUTS,
  };
}

const request = (
  requiredBytes: bigint,
  parameters: Record<string, string> = {},
): CreateVolumeRequest =>
  ({
    name: NAME,
    capacity_range: { required_bytes: String(requiredBytes), limit_bytes: '0' },
    volume_capabilities: [{ block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } }],
    parameters,
    secrets: {},
  }) as unknown as CreateVolumeRequest;

const existingPvc = (storage: string, storageClassName = 'longhorn'): HostPvc => ({
  metadata: { name: NAME },
  spec: {
    accessModes: ['ReadWriteMany'],
    volumeMode: 'Block',
    storageClassName,
    resources: { requests: { storage } },
  },
  status: { phase: 'Bound', capacity: { storage } },
});

describe('createVolume: a repeat of a name that exists', () => {
  const ctx = () => ({
    signal: new AbortController().signal,
    deadline: undefined,
    log: captureLogger().logger,
  });

  it("answers the existing volume's size, not the size asked for this time", async () => {
    const host = hostWith(existingPvc('20Gi'));
    const { volume } = await createVolume(depsFor(host), request(10n * Gi), ctx());
    assert.strictEqual(volume.capacity_bytes, String(20n * Gi));
    assert.strictEqual(volume.volume_id, NAME);
  });

  it('with other parameters (another host StorageClass) is ALREADY_EXISTS', async () => {
    const host = hostWith(existingPvc('10Gi', 'longhorn'));
    try {
      await createVolume(depsFor(host), request(10n * Gi, { hostStorageClass: 'nfs' }), ctx());
      assert.fail('expected CSI_VOLUME_EXISTS');
    } catch (error) {
      assert.isTrue(isCsiError(error, 'CSI_VOLUME_EXISTS'), String(error));
    }
  });
});
