import { describe, it } from 'mocha';
import { assert } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import {
  DEFAULT_CONTROLLER_TIMEOUTS,
  type ControllerDeps,
} from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import { createVolume } from '../../../src/guest-csi-bridge/controller/create-volume.js';
import { deleteVolume } from '../../../src/guest-csi-bridge/controller/delete-volume.js';
import { expandVolume } from '../../../src/guest-csi-bridge/controller/expand-volume.js';
import {
  publishVolume,
  unpublishVolume,
} from '../../../src/guest-csi-bridge/controller/publish-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import { createHostResolver } from '../../../src/guest-csi-bridge/host/host-resolver.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import type {
  ControllerExpandVolumeRequest,
  ControllerPublishVolumeRequest,
  ControllerUnpublishVolumeRequest,
  CreateVolumeRequest,
  DeleteVolumeRequest,
} from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import type { CallContext } from '../../../src/guest-csi-bridge/server/call-context.js';
import { captureLogger } from '../../support/capture-logger.js';
import { listenTcp } from '../../support/tcp-listener.js';

const VOLUME = 'pvc-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d';
const NODE = 'guest-node-1';
const CAPABILITY = { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };

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

/** Each controller call that holds the volume while it asks the host, with a request for VOLUME. */
const CALLS: ReadonlyArray<[string, (deps: ControllerDeps, ctx: CallContext) => Promise<unknown>]> =
  [
    [
      'CreateVolume',
      (deps, ctx) =>
        createVolume(
          deps,
          {
            name: VOLUME,
            capacity_range: { required_bytes: String(1024 ** 3), limit_bytes: '0' },
            volume_capabilities: [CAPABILITY],
            parameters: {},
            secrets: {},
            volume_content_source: null,
          } as unknown as CreateVolumeRequest,
          ctx,
        ),
    ],
    [
      'DeleteVolume',
      (deps, ctx) =>
        deleteVolume(deps, { volume_id: VOLUME, secrets: {} } as DeleteVolumeRequest, ctx),
    ],
    [
      'ControllerPublishVolume',
      (deps, ctx) =>
        publishVolume(
          deps,
          {
            volume_id: VOLUME,
            node_id: NODE,
            volume_capability: CAPABILITY,
            readonly: false,
            secrets: {},
            volume_context: {},
          } as unknown as ControllerPublishVolumeRequest,
          ctx,
        ),
    ],
    [
      'ControllerUnpublishVolume',
      (deps, ctx) =>
        unpublishVolume(
          deps,
          { volume_id: VOLUME, node_id: NODE, secrets: {} } as ControllerUnpublishVolumeRequest,
          ctx,
        ),
    ],
    [
      'ControllerExpandVolume',
      (deps, ctx) =>
        expandVolume(
          deps,
          {
            volume_id: VOLUME,
            capacity_range: { required_bytes: String(2 * 1024 ** 3), limit_bytes: '0' },
            volume_capability: CAPABILITY,
            secrets: {},
          } as unknown as ControllerExpandVolumeRequest,
          ctx,
        ),
    ],
  ];

describe('a controller call cancelled while it waits on the host', () => {
  for (const [rpc, call] of CALLS) {
    it(`${rpc}: ends its host request and lets go of the volume at once: the next call is not blocked`, async () => {
      const kc = await hangingHost();
      const locks = new VolumeLocks();
      const deps: ControllerDeps = {
        hosts: createHostResolver(createKubeHostApi(kc), createKubeHostApi),
        hostStorageClass: undefined,
        settingName: 'csi-online-expand-validation',
        locks,
        timeouts: DEFAULT_CONTROLLER_TIMEOUTS,
      };
      const log = captureLogger().logger;
      const cancel = new AbortController();
      const started = Date.now();
      const first = call(deps, { signal: cancel.signal, deadline: undefined, log });
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
      const second = call(deps, { signal: next.signal, deadline: undefined, log });
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
  }
});
