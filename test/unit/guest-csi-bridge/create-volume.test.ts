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
import { expectRejection } from '../../support/expect-error.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';

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

describe('createVolume: shared (MULTI_NODE_MULTI_WRITER) volumes', () => {
  const callContext = () => ({
    signal: new AbortController().signal,
    deadline: undefined,
    log: captureLogger().logger,
  });
  const shared = (parameters: Record<string, string> = {}): CreateVolumeRequest =>
    ({
      ...request(Gi, parameters),
      volume_capabilities: [
        { mount: { fs_type: '' }, access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' } },
      ],
    }) as unknown as CreateVolumeRequest;

  /** A host that serves NetworkFilesystems or not, whose StorageClasses have `provisioner`, recording the PVC created. */
  function hostServing(served: boolean, provisioner: string): HostApi & { created: HostPvc[] } {
    const created: HostPvc[] = [];
    return {
      namespace: 'guests',
      created,
      networkFilesystemsServed: async () => served,
      getStorageClass: async () => ({ provisioner }),
      createPvc: async (body: HostPvc) => {
        created.push(body);
        return { created: true, pvc: body };
      },
    } as unknown as HostApi & { created: HostPvc[] };
  }

  const cases: Array<[string, boolean, string, Record<string, string>, RegExp | undefined]> = [
    [
      'a Longhorn host StorageClass on a host with NetworkFilesystems',
      true,
      'driver.longhorn.io',
      { hostStorageClass: 'longhorn' },
      undefined,
    ],
    [
      'hostVolumeMode block is overruled: a share is a filesystem',
      true,
      'driver.longhorn.io',
      { hostStorageClass: 'longhorn', hostVolumeMode: 'block' },
      undefined,
    ],
    [
      'no NetworkFilesystems on the host',
      false,
      'driver.longhorn.io',
      { hostStorageClass: 'longhorn' },
      /NetworkFilesystems/,
    ],
    [
      'another provisioner',
      true,
      'lvm.driver.harvesterhci.io',
      { hostStorageClass: 'lvm' },
      /not driver\.longhorn\.io/,
    ],
  ];
  for (const [name, served, provisioner, parameters, refusal] of cases)
    it(name, async () => {
      const host = hostServing(served, provisioner);
      const call = createVolume(depsFor(host), shared(parameters), callContext());
      if (refusal === undefined) {
        await call;
        assert.lengthOf(host.created, 1);
        assert.strictEqual(host.created[0]?.spec?.volumeMode, 'Filesystem');
        assert.deepStrictEqual(host.created[0]?.spec?.accessModes, ['ReadWriteMany']);
        assert.isUndefined(host.created[0]?.metadata?.annotations);
      } else {
        await expectRejection(call, hasCode('CSI_UNSUPPORTED_CAPABILITY', refusal));
        assert.lengthOf(host.created, 0);
      }
    });

  it('from a snapshot: refused, nothing made', async () => {
    const host = hostServing(true, 'driver.longhorn.io');
    const fromSnapshot = {
      ...shared(),
      volume_content_source: { type: 'snapshot', snapshot: { snapshot_id: 's' } },
    } as unknown as CreateVolumeRequest;
    await expectRejection(
      createVolume(depsFor(host), fromSnapshot, callContext()),
      hasCode('CSI_UNSUPPORTED_CAPABILITY', /from a snapshot/),
    );
    assert.lengthOf(host.created, 0);
  });
});
