import { describe, it } from 'mocha';
import { assert } from 'chai';
import { CsiError } from '../../../src/guest-csi-bridge/errors/csi-error.js';
import type { HostApi } from '../../../src/guest-csi-bridge/host/host-api.js';
import type {
  HostVm,
  JsonPatchOperation,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import { releaseVolumes } from '../../../src/guest-csi-bridge/monitor/release-volumes.js';
import { captureLogger } from '../../support/capture-logger.js';

const VM: HostVm = {
  metadata: { name: 'worker-1', resourceVersion: '9' },
  spec: {
    template: {
      spec: {
        volumes: ['rootdisk', 'pvc-a', 'pvc-b'].map((name) => ({
          name,
          persistentVolumeClaim: { claimName: name, hotpluggable: name !== 'rootdisk' },
        })),
        domain: { devices: { disks: ['rootdisk', 'pvc-a', 'pvc-b'].map((name) => ({ name })) } },
      },
    },
  },
};

interface Calls {
  patches: JsonPatchOperation[][];
  removed: unknown[];
}

/** A host at Harvester `version` (declarative hotplug from v1.8) whose VM is `vm`. */
function fakeHost(
  version: string,
  vm: HostVm | undefined,
  calls: Calls,
  gone = new Set<string>(),
): HostApi {
  return {
    namespace: 'guests',
    getVm: async () => vm,
    getSetting: async () => ({ value: version }),
    patchVm: async (_name: string, operations: JsonPatchOperation[]) => {
      calls.patches.push(operations);
    },
    removeVolumeLegacy: async (_vm: string, body: { name: string }) => {
      calls.removed.push(body);
      // KubeVirt's answer for a volume the VM no longer has.
      if (gone.has(body.name))
        throw new CsiError('CSI_HOST_REQUEST_FAILED', 'not found', {
          details: { httpStatus: 404 },
        });
    },
  } as unknown as HostApi;
}

describe("guest CSI bridge: the node monitor's release of a dead node's volumes", () => {
  const log = captureLogger().logger;

  it('declarative hotplug: one guarded patch for the volumes the VM still lists', async () => {
    const calls: Calls = { patches: [], removed: [] };
    const released = await releaseVolumes(
      fakeHost('v1.8.0', VM, calls),
      'worker-1',
      ['pvc-a', 'pvc-b', 'pvc-gone'],
      log,
    );
    assert.deepEqual(released, ['pvc-a', 'pvc-b']);
    assert.lengthOf(calls.patches, 1);
    assert.deepEqual(calls.patches[0]![0], {
      op: 'test',
      path: '/metadata/resourceVersion',
      value: '9',
    });
    assert.deepEqual(calls.removed, []);
  });

  it("legacy hotplug: KubeVirt's removevolume for each, a volume already gone (404) is no failure", async () => {
    const calls: Calls = { patches: [], removed: [] };
    const released = await releaseVolumes(
      fakeHost('v1.6.1', VM, calls, new Set(['pvc-a'])),
      'worker-1',
      ['pvc-a', 'pvc-b'],
      log,
    );
    assert.deepEqual(released, ['pvc-a', 'pvc-b']);
    assert.deepEqual(calls.removed, [{ name: 'pvc-a' }, { name: 'pvc-b' }]);
    assert.deepEqual(calls.patches, []);
  });

  it('nothing to do when the VM is gone or lists none of them', async () => {
    for (const vm of [undefined, VM]) {
      const calls: Calls = { patches: [], removed: [] };
      assert.deepEqual(
        await releaseVolumes(fakeHost('v1.8.0', vm, calls), 'worker-1', ['pvc-x'], log),
        [],
      );
      assert.deepEqual(calls, { patches: [], removed: [] });
    }
  });
});
