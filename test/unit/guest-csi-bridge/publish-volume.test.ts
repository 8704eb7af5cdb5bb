import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  DEFAULT_CONTROLLER_TIMEOUTS,
  type ControllerDeps,
} from '../../../src/guest-csi-bridge/controller/controller-deps.js';
import {
  publishVolume,
  unpublishVolume,
} from '../../../src/guest-csi-bridge/controller/publish-volume.js';
import { VolumeLocks } from '../../../src/guest-csi-bridge/csi/volume-locks.js';
import { CsiError, isCsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import type { HostVm, HostVmi } from '../../../src/guest-csi-bridge/host/host-objects.js';
import type {
  ControllerPublishVolumeRequest,
  ControllerUnpublishVolumeRequest,
} from '../../../src/guest-csi-bridge/proto/csi-messages.js';
import { captureLogger } from '../../support/capture-logger.js';

const VOLUME = 'pvc-5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9';

const vm = (name: string, volumes: string[]): HostVm => ({
  metadata: { name, resourceVersion: '1' },
  spec: {
    template: {
      spec: {
        volumes: volumes.map((v) => ({
          name: v,
          persistentVolumeClaim: { claimName: v, hotpluggable: true },
        })),
        domain: { devices: { disks: volumes.map((v) => ({ name: v, disk: { bus: 'scsi' } })) } },
      },
    },
  },
});
const vmi = (name: string, volumes: string[]): HostVmi => ({
  metadata: { name, resourceVersion: '1' },
  status: {
    volumeStatus: volumes.map((v) => ({
      name: v,
      target: 'sda',
      phase: 'Ready',
      hotplugVolume: { attachPodName: `hp-volume-${name}` },
    })),
  },
});

/** What the fake host was asked to change. */
interface Calls {
  patched: string[];
  removedFromVmi: Array<{ vmi: string; body: unknown }>;
}

/** A host whose VMs and VMIs are `vms`/`vmis`; removeVolumeFromVmi answers `removeAnswer`. */
function fakeHost(
  vms: HostVm[],
  vmis: HostVmi[],
  calls: Calls,
  removeAnswer: () => Promise<void> = async () => undefined,
): HostApi {
  const byName = <T extends { metadata?: { name?: string } }>(list: T[], name: string) =>
    list.find((o) => o.metadata?.name === name);
  return {
    namespace: 'guests',
    getPvc: async () => ({
      metadata: { name: VOLUME },
      spec: { volumeMode: 'Block' },
      status: { phase: 'Bound', capacity: { storage: '1Gi' } },
    }),
    getVm: async (name: string) => byName(vms, name),
    getVmi: async (name: string) => byName(vmis, name),
    listVms: async () => vms,
    listVmis: async () => vmis,
    patchVm: async (name: string) => {
      calls.patched.push(name);
    },
    getSetting: async () => ({ value: 'v1.8.0' }),
    removeVolumeFromVmi: async (name: string, body: unknown) => {
      calls.removedFromVmi.push({ vmi: name, body });
      // The instance's status drops the volume (after this call, or already on its way out when
      // KubeVirt answers 409: the instance's spec no longer has it).
      const instance = byName(vmis, name);
      if (instance?.status) instance.status.volumeStatus = [];
      await removeAnswer();
    },
    waitForVmi: async (name: string, done: (vmi: HostVmi | undefined) => boolean) => {
      const current = byName(vmis, name);
      if (!done(current)) throw new Error('the fake host does not change on its own');
      return current;
    },
  } as unknown as HostApi;
}

const depsFor = (host: HostApi): ControllerDeps => ({
  hosts: { defaultHost: host, forSecrets: () => host },
  hostStorageClass: undefined,
  settingName: 'csi-online-expand-validation',
  locks: new VolumeLocks(),
  timeouts: DEFAULT_CONTROLLER_TIMEOUTS,
});
const ctx = () => ({
  signal: new AbortController().signal,
  deadline: undefined,
  log: captureLogger().logger,
});

describe('publishVolume: a single-node volume plugged elsewhere', () => {
  const table: Array<[string, HostVm[], HostVmi[]]> = [
    ['another VM lists it', [vm('node-a', []), vm('node-b', [VOLUME])], []],
    [
      "only another VM's instance lists it",
      [vm('node-a', []), vm('node-b', [])],
      [vmi('node-b', [VOLUME])],
    ],
  ];
  for (const [name, vms, vmis] of table)
    it(`${name}: FAILED_PRECONDITION (CSI_VOLUME_PUBLISHED_ELSEWHERE), nothing patched`, async () => {
      const calls: Calls = { patched: [], removedFromVmi: [] };
      const request = {
        volume_id: VOLUME,
        node_id: 'node-a',
        volume_capability: { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
        secrets: {},
      } as unknown as ControllerPublishVolumeRequest;
      try {
        await publishVolume(depsFor(fakeHost(vms, vmis, calls)), request, ctx());
        assert.fail('expected CSI_VOLUME_PUBLISHED_ELSEWHERE');
      } catch (error) {
        assert.isTrue(isCsiError(error, 'CSI_VOLUME_PUBLISHED_ELSEWHERE'), String(error));
        assert.match((error as Error).message, /node-b/);
      }
      assert.deepStrictEqual(calls.patched, []);
    });
});

describe('unpublishVolume: only the VMI lists the volume', () => {
  const answers: Array<[string, () => Promise<void>]> = [
    ['KubeVirt removes it', async () => undefined],
    [
      'KubeVirt answers 409 (the volume is absent already)',
      async () => {
        throw new CsiError('CSI_HOST_REQUEST_FAILED', 'the host answered 409 Conflict', {
          details: { httpStatus: 409 },
        });
      },
    ],
  ];
  for (const node of ['node-a', ''])
    for (const [name, answer] of answers)
      it(`node_id "${node}": the VMI's removevolume; ${name}: done`, async () => {
        const calls: Calls = { patched: [], removedFromVmi: [] };
        const host = fakeHost([vm('node-a', [])], [vmi('node-a', [VOLUME])], calls, answer);
        const request = {
          volume_id: VOLUME,
          node_id: node,
          secrets: {},
        } as unknown as ControllerUnpublishVolumeRequest;
        assert.deepStrictEqual(await unpublishVolume(depsFor(host), request, ctx()), {});
        assert.deepStrictEqual(calls.removedFromVmi, [{ vmi: 'node-a', body: { name: VOLUME } }]);
        assert.deepStrictEqual(calls.patched, []);
      });
});
