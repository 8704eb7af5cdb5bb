import { describe, it } from 'mocha';
import { assert } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_CONTROLLER_TIMEOUTS } from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import { expandVolume } from '../../../src/guest-csi-bridge/controller/expand-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { createHostResolver } from '../../../src/guest-csi-bridge/host/host-resolver.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import type { ControllerExpandVolumeRequest } from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';
import { listenTcp } from '../../support/tcp-listener.js';

const VOLUME = 'pvc-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';

/** A host kubeconfig whose API server accepts connections and never answers (a host that hangs). */
async function hangingHost(): Promise<KubeConfig> {
  const port = await listenTcp();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'host', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'guest', token: 'not-a-secret' }],
    contexts: [{ name: 'host', cluster: 'host', user: 'guest', namespace: 'guests' }],
    currentContext: 'host',
  });
  return kc;
}

const request = {
  volume_id: VOLUME,
  capacity_range: { required_bytes: String(2 * 1024 ** 3), limit_bytes: '0' },
  volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
  secrets: {},
} as unknown as ControllerExpandVolumeRequest;

describe('ControllerExpandVolume cancelled while it waits on the host', () => {
  it('ends its host request and lets go of the volume at once: the next call is not blocked', async () => {
    const kc = await hangingHost();
    const locks = new VolumeLocks();
    const deps = {
      hosts: createHostResolver(createKubeHostApi(kc), createKubeHostApi),
      hostStorageClass: undefined,
      settingName: 'csi-online-expand-validation',
      locks,
      timeouts: DEFAULT_CONTROLLER_TIMEOUTS,
    };
    const cancel = new AbortController();
    const log = captureLogger().logger;
    const started = Date.now();
    const first = expandVolume(deps, request, { signal: cancel.signal, deadline: undefined, log });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.strictEqual(locks.size, 1, 'the call holds the volume while the host hangs');
    cancel.abort('cancelled by the client');
    const failure = await first.then(
      () => assert.fail('a cancelled call must not succeed'),
      (error: unknown) => error,
    );
    assert.isBelow(Date.now() - started, 2_000, `released at once, not after the host's 20 s`);
    assert.strictEqual(locks.size, 0);
    // The next call on the same volume takes the lock (it then waits on the hanging host too).
    const next = new AbortController();
    const second = expandVolume(deps, request, { signal: next.signal, deadline: undefined, log });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.strictEqual(locks.size, 1);
    next.abort('done');
    const secondFailure = await second.then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.isFalse(isCsiError(secondFailure, 'CSI_OPERATION_PENDING'), String(secondFailure));
    assert.isFalse(isCsiError(failure, 'CSI_OPERATION_PENDING'), String(failure));
  });
});
