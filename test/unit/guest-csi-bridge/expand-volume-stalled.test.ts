import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readFile } from 'node:fs/promises';
import { status as Status } from '@grpc/grpc-js';
import { DEFAULT_CONTROLLER_TIMEOUTS } from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import { expandVolume } from '../../../src/guest-csi-bridge/controller/expand-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { grpcStatusOf } from '../../../src/guest-csi-bridge/errors/grpc-status-of.js';
import type { HostApi, WaitOptions } from '../../../src/guest-csi-bridge/host/host-api.js';
import type { HostPvc } from '../../../src/guest-csi-bridge/host/host-objects.js';
import type { ControllerExpandVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const VOLUME = 'pvc-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';

/**
 * A host before Kubernetes 1.32 whose storage never grows the PVC: the request is raised to 2Gi,
 * the capacity stays 1Gi, and its resizer writes no infeasible mark (only events). Its wait
 * behaves as waitForObject: nothing changes, so it ends only when its signal aborts, with the
 * signal's reason.
 */
function hostThatNeverGrows(): HostApi {
  const pvc: HostPvc = {
    metadata: { name: VOLUME, namespace: 'guests', resourceVersion: '7' },
    spec: { resources: { requests: { storage: '2Gi' } }, storageClassName: 'longhorn' },
    status: { phase: 'Bound', capacity: { storage: '1Gi' } },
  } as HostPvc;
  return {
    namespace: 'guests',
    getPvc: async () => pvc,
    podsUsingPvc: async () => [],
    getSetting: async () => undefined,
    getStorageClass: async () => undefined,
    waitForPvc: (_name: string, _done: unknown, options: WaitOptions<HostPvc>) =>
      new Promise((_resolve, reject) => {
        const { signal } = options;
        if (signal.aborted) reject(signal.reason);
        else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  } as unknown as HostApi;
}

const request = {
  volume_id: VOLUME,
  capacity_range: { required_bytes: String(2 * 1024 ** 3), limit_bytes: '0' },
  volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
  secrets: {},
} as unknown as ControllerExpandVolumeRequest;

describe('ControllerExpandVolume on a host that writes no infeasible mark', () => {
  it('answers a final, explained error (INTERNAL) before the deadline, naming the host PVC', async () => {
    const host = hostThatNeverGrows();
    const deps = {
      hosts: { defaultHost: host, forSecrets: () => host },
      hostStorageClass: undefined,
      settingName: 'csi-online-expand-validation',
      locks: new VolumeLocks(),
      timeouts: { ...DEFAULT_CONTROLLER_TIMEOUTS, stalledMs: 200 },
    };
    // The resizer's deadline (scaled down): the answer must come before it.
    const deadline = Date.now() + 2_000;
    const ctx = {
      signal: AbortSignal.timeout(1_900),
      deadline,
      log: captureLogger().logger,
    };
    const failure = await expandVolume(deps, request, ctx).then(
      () => assert.fail('a host that never grows cannot succeed'),
      (error: unknown) => error,
    );
    assert.isBelow(Date.now(), deadline);
    assert.isTrue(isCsiError(failure, 'CSI_HOST_NOT_GROWING'), String(failure));
    // Not DEADLINE_EXCEEDED, UNAVAILABLE, ABORTED, CANCELLED or RESOURCE_EXHAUSTED, which
    // external-resizer retries as non-final without a word on the PVC.
    assert.strictEqual(grpcStatusOf(failure).code, Status.INTERNAL);
    assert.match(String(failure), new RegExp(`host PVC guests/${VOLUME}`));
    assert.match(String(failure), /no infeasible mark.*check the host PVC's events/);
    assert.strictEqual(deps.locks.size, 0);
  });

  it("waits less than the chart's resizer timeout by default", async () => {
    const values = await readFile('charts/voe-csi/values.yaml', 'utf8');
    const timeout = /resizer:[\s\S]*?timeout:\s*(\d+)m(\d+)s/.exec(values);
    assert.ok(timeout, 'sidecars.resizer.timeout in charts/voe-csi/values.yaml');
    const resizerMs = (Number(timeout[1]) * 60 + Number(timeout[2])) * 1000;
    // Answered with at least the serving margin (1 s) to spare.
    assert.isAtMost(DEFAULT_CONTROLLER_TIMEOUTS.stalledMs, resizerMs - 1_000);
  });
});
