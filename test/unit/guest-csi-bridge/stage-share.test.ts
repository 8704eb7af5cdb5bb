import { after, describe, it } from 'mocha';
import { assert } from 'chai';
import { rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MountEntry } from '../../../src/fsresize/index.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import type {
  HostNetworkFilesystem,
  HostPvc,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import { expandVolume } from '../../../src/guest-csi-bridge/node/expand-volume.js';
import type { Mounter } from '../../../src/guest-csi-bridge/node/mounter.js';
import type { NodeDeps } from '../../../src/guest-csi-bridge/node/node-deps.js';
import { stageVolume } from '../../../src/guest-csi-bridge/node/stage-volume.js';
import type {
  NodeExpandVolumeRequest,
  NodeStageVolumeRequest,
} from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';
import { expectRejection } from '../../support/expect-error.js';
import { hasCode } from '../../support/guest-csi-bridge/has-code.js';

const VOLUME = 'pvc-5d2c1b0a';
const PV = 'pvc-9e8f7a6b';
const SHARED = { mount: { fs_type: '' }, access_mode: { mode: 'MULTI_NODE_MULTI_WRITER' } };
const READY = { status: 'Ready', state: 'Enabled', endpoint: '10.53.0.9' };

const boundPvc = (volumeMode = 'Filesystem'): HostPvc => ({
  metadata: { name: VOLUME },
  spec: { volumeMode, accessModes: ['ReadWriteMany'], volumeName: PV },
  status: { phase: 'Bound' },
});

/** A Mounter that records mounts and shows `shown` at every path. */
function recordingMounter(shown: MountEntry | null): Mounter & { mounts: unknown[][] } {
  const mounts: unknown[][] = [];
  return {
    mounts,
    mountAt: async () => shown,
    mount: async (...args: unknown[]) => {
      mounts.push(args);
    },
    unmount: async () => undefined,
    format: async () => undefined,
    bind: async () => undefined,
  } as unknown as Mounter & { mounts: unknown[][] };
}

function depsWith(
  mounter: Mounter,
  pvc: HostPvc | undefined,
  share: HostNetworkFilesystem | undefined,
  withHost = true,
): NodeDeps {
  const host = {
    namespace: 'guests',
    getPvc: async () => pvc,
    getNetworkFilesystem: async () => share,
  } as unknown as HostApi;
  return {
    nodeId: 'guest-node-1',
    defaultFsType: 'ext4',
    mounter,
    hosts: withHost ? { defaultHost: host, forSecrets: () => host } : undefined,
    locks: new VolumeLocks(),
    timeouts: { deviceMs: 50, growMs: 50 },
  } as unknown as NodeDeps;
}

const staging = join(tmpdir(), 'voe-stage-share-test');
const request = {
  volume_id: VOLUME,
  staging_target_path: staging,
  volume_capability: SHARED,
  secrets: {},
} as unknown as NodeStageVolumeRequest;
const ctx = () => ({
  signal: new AbortController().signal,
  deadline: undefined,
  log: captureLogger().logger,
});
const entry = (source: string): MountEntry => ({ source }) as MountEntry;

describe("NodeStageVolume of a shared volume: its NFS export, as Harvester's nodeStageRWXVolume mounts it", () => {
  after(() => rm(staging, { recursive: true, force: true }));

  it('mounts <endpoint>:/<Longhorn volume> as nfs, NFSv4 unless the share recommends options', async () => {
    const mounter = recordingMounter(null);
    await stageVolume(depsWith(mounter, boundPvc(), { status: READY }), request, ctx());
    assert.deepStrictEqual(mounter.mounts, [[`10.53.0.9:/${PV}`, staging, 'nfs', ['vers=4']]]);
    const tuned = recordingMounter(null);
    const share = { status: { ...READY, mountOpts: 'vers=4.1,noresvport' } };
    await stageVolume(depsWith(tuned, boundPvc(), share), request, ctx());
    assert.deepStrictEqual(tuned.mounts[0]?.[3], ['vers=4.1', 'noresvport']);
  });

  it('the export ControllerPublishVolume put in publish_context: mounted without the host (a node plugin without host credentials)', async () => {
    const mounter = recordingMounter(null);
    const published = {
      ...request,
      publish_context: { shareSource: `10.53.0.9:/${PV}`, shareMountOptions: 'vers=4.1' },
    } as NodeStageVolumeRequest;
    await stageVolume(depsWith(mounter, undefined, undefined, false), published, ctx());
    assert.deepStrictEqual(mounter.mounts, [[`10.53.0.9:/${PV}`, staging, 'nfs', ['vers=4.1']]]);
  });

  it('already mounted there: success, nothing mounted again', async () => {
    const mounter = recordingMounter(entry(`10.53.0.9:/${PV}`));
    await stageVolume(depsWith(mounter, boundPvc(), { status: READY }), request, ctx());
    assert.lengthOf(mounter.mounts, 0);
  });

  const refusals: Array<[string, NodeDeps, string, RegExp]> = [
    [
      'another mount at the staging path',
      depsWith(recordingMounter(entry('/dev/sdb')), boundPvc(), { status: READY }),
      'CSI_MOUNT_FAILED',
      /already shows \/dev\/sdb/,
    ],
    [
      'the share not exported yet (UNAVAILABLE: kubelet retries)',
      depsWith(recordingMounter(null), boundPvc(), {
        status: { status: 'NotReady', state: 'Enabling' },
      }),
      'CSI_SHARE_NOT_READY',
      /reports NotReady/,
    ],
    [
      'no NetworkFilesystem',
      depsWith(recordingMounter(null), boundPvc(), undefined),
      'CSI_SHARE_NOT_READY',
      /does not exist/,
    ],
    [
      'a Block-mode host PVC',
      depsWith(recordingMounter(null), boundPvc('Block'), { status: READY }),
      'CSI_UNSUPPORTED_CAPABILITY',
      /not a shared volume/,
    ],
    [
      'no host PVC',
      depsWith(recordingMounter(null), undefined, undefined),
      'CSI_VOLUME_NOT_FOUND',
      /does not exist/,
    ],
    [
      'a node plugin without host credentials',
      depsWith(recordingMounter(null), boundPvc(), { status: READY }, false),
      'CSI_UNSUPPORTED_CAPABILITY',
      /no host credentials/,
    ],
  ];
  for (const [name, deps, code, message] of refusals)
    it(`refused: ${name}`, async () => {
      await expectRejection(stageVolume(deps, request, ctx()), hasCode(code, message));
      assert.lengthOf((deps.mounter as unknown as { mounts: unknown[] }).mounts, 0);
    });
});

describe('NodeExpandVolume of a shared volume', () => {
  it('grows nothing in the guest: answers the size the mount shows', async () => {
    const mounter = recordingMounter(null);
    const deps = depsWith(mounter, boundPvc(), { status: READY });
    const answer = await expandVolume(
      deps,
      {
        volume_id: VOLUME,
        volume_path: tmpdir(),
        capacity_range: { required_bytes: String(1024 ** 4), limit_bytes: '0' },
        volume_capability: SHARED,
        secrets: {},
      } as unknown as NodeExpandVolumeRequest,
      ctx(),
    );
    const fs = await statfs(tmpdir(), { bigint: true });
    assert.strictEqual(answer.capacity_bytes, String(fs.blocks * fs.bsize));
    assert.lengthOf(mounter.mounts, 0);
  });
});
