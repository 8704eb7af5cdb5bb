import { describe, it } from 'mocha';
import { assert } from 'chai';
import { DEFAULT_CONTROLLER_TIMEOUTS } from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import { readExpandSetting } from '../../../src/guest-csi-bridge/controller/expand-setting.js';
import { expandVolume } from '../../../src/guest-csi-bridge/controller/expand-volume.js';
import { retryRefusedSize } from '../../../src/guest-csi-bridge/controller/retry-refused-size.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi, WaitOptions } from '../../../src/guest-csi-bridge/host/host-api.js';
import type { HostPvc } from '../../../src/guest-csi-bridge/host/host-objects.js';
import type { HarvesterSetting } from '../../../src/settings/index.js';
import type { ControllerExpandVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;
const VOLUME = 'pvc-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';
const SETTING = 'csi-online-expand-validation';
const nfsClass = { metadata: { name: 'nfs' }, provisioner: 'nfs.csi.k8s.io' };
const longhornClass = { metadata: { name: 'longhorn' }, provisioner: 'driver.longhorn.io' };

const setting = (value: string): HarvesterSetting =>
  ({
    metadata: { name: SETTING },
    default: '{"driver.longhorn.io":true}',
    value,
  }) as HarvesterSetting;

/** A host PVC whose request the host's resizer marked infeasible (allocatedResources = request). */
function marked(request: string, storageClassName = 'nfs'): HostPvc {
  return {
    metadata: { name: VOLUME, namespace: 'guests', resourceVersion: '7' },
    spec: { storageClassName, resources: { requests: { storage: request } } },
    status: {
      phase: 'Bound',
      capacity: { storage: '1Gi' },
      allocatedResources: { storage: request },
      allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
      conditions: [
        { type: 'ControllerResizeError', status: 'True', message: 'failed to expand pvc' },
      ],
    },
  } as HostPvc;
}

describe('retryRefusedSize', () => {
  const facts = (value: string, storageClass = nfsClass) => ({
    usedBy: ['hp-volume-abcde'],
    setting: readExpandSetting(setting(value)),
    storageClass,
  });
  const input = { requiredBytes: 2n * Gi, limitBytes: 0n, roundingBytes: 2n * Mi };

  it('the provider validated by an operator since: asked again, one rounding unit above', () => {
    assert.deepStrictEqual(
      retryRefusedSize({ ...input, pvc: marked('2Gi'), host: facts('{"nfs.csi.k8s.io":true}') }),
      { action: 'patch', requestBytes: 2n * Gi + 2n * Mi },
    );
  });

  it('not validated, or validated only by Harvester default: still refused', () => {
    assert.isUndefined(retryRefusedSize({ ...input, pvc: marked('2Gi'), host: facts('') }));
    assert.isUndefined(
      retryRefusedSize({
        ...input,
        pvc: marked('2Gi', 'longhorn'),
        host: facts('', longhornClass),
      }),
    );
  });

  it('once: a request already raised past the rounded size is refused', () => {
    assert.isUndefined(
      retryRefusedSize({
        ...input,
        pvc: marked('2050Mi'),
        host: facts('{"nfs.csi.k8s.io":true}'),
      }),
    );
  });

  it('a limit the raised request would pass: refused', () => {
    assert.isUndefined(
      retryRefusedSize({
        ...input,
        limitBytes: 2n * Gi,
        pvc: marked('2Gi'),
        host: facts('{"nfs.csi.k8s.io":true}'),
      }),
    );
  });
});

/**
 * The host: its PVC marked infeasible at 2Gi, its Setting as `value()` says. Its resizer does what
 * external-resizer's expandAndRecover (pkg/controller/expand_and_recover.go) does with a PVC in
 * ControllerResizeInfeasible: a request equal to allocatedResources is skipped (slowSet), a new
 * request is tried at once (newSize = spec), and here the storage grows to it.
 */
function hostWithMark(value: () => string) {
  let pvc = marked('2Gi');
  let writes = 0;
  const api = {
    namespace: 'guests',
    getPvc: async () => pvc,
    podsUsingPvc: async () => ['hp-volume-abcde'],
    getSetting: async () => setting(value()),
    getStorageClass: async () => nfsClass,
    setPvcRequest: async (_name: string, storage: string) => {
      writes++;
      const allocated = pvc.status?.allocatedResources?.['storage'];
      pvc = {
        ...pvc,
        metadata: { ...pvc.metadata, resourceVersion: String(8 + writes) },
        spec: { ...pvc.spec, resources: { requests: { storage } } },
      };
      if (storage !== allocated)
        pvc = {
          ...pvc,
          status: {
            phase: 'Bound',
            capacity: { storage },
            allocatedResources: { storage },
          },
        };
      return pvc;
    },
    waitForPvc: async (
      _name: string,
      done: (current: HostPvc | undefined) => boolean,
      options: WaitOptions<HostPvc>,
    ) => {
      if (done(pvc)) return pvc;
      throw options.signal.reason;
    },
  } as unknown as HostApi;
  return { api, writes: () => writes };
}

describe('ControllerExpandVolume: a size the host refused, retried from the guest', () => {
  it('refused; once the provider is validated in the Setting, the same size succeeds', async () => {
    let value = '';
    const host = hostWithMark(() => value);
    const deps = {
      hosts: { defaultHost: host.api, forSecrets: () => host.api },
      hostStorageClass: undefined,
      settingName: SETTING,
      locks: new VolumeLocks(),
      timeouts: DEFAULT_CONTROLLER_TIMEOUTS,
    };
    const request = {
      volume_id: VOLUME,
      capacity_range: { required_bytes: String(2n * Gi), limit_bytes: '0' },
      volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
      secrets: {},
    } as unknown as ControllerExpandVolumeRequest;
    const ctx = () => ({
      signal: new AbortController().signal,
      deadline: undefined,
      log: captureLogger().logger,
    });
    const refused = await expandVolume(deps, request, ctx()).then(
      () => assert.fail('the mark refuses the size'),
      (error: unknown) => error,
    );
    assert.isTrue(isCsiError(refused, 'CSI_HOST_RESIZE_INFEASIBLE'), String(refused));
    assert.strictEqual(host.writes(), 0);
    value = '{"nfs.csi.k8s.io":true}';
    const grown = await expandVolume(deps, request, ctx());
    assert.strictEqual(grown.capacity_bytes, String(2n * Gi + 2n * Mi));
    assert.strictEqual(host.writes(), 1);
  });
});
