import { describe, it } from 'mocha';
import { assert } from 'chai';
import { hotplugPod, launcherPod } from '../../../../src/demo/actors/staged-pods.js';
import { vmi } from '../../../../src/demo/staged-objects.js';

describe('the staged hotplug attachment pod', () => {
  it("mounts and attaches volumes at KubeVirt's paths (RenderHotplugAttachmentPodTemplate)", () => {
    const launcher = launcherPod(vmi('vm1'), { name: 'virt-launcher-vm1-abcde', uid: 'uid-l' });
    const pod = hotplugPod(launcher, {
      name: 'hp-volume-x1y2z',
      uid: 'uid-hp',
      volumes: [
        { name: 'fs-data', claimName: 'fs-data-claim', hold: 'mount' },
        { name: 'blk-data', claimName: 'blk-data-claim', hold: 'device', claimUid: 'uid-pvc-blk' },
        { name: 'ready', claimName: 'ready-claim', hold: 'listed' },
      ],
    });
    const container = pod.spec?.containers?.[0];
    assert.deepStrictEqual(
      container?.volumeMounts?.map((m) => [m.name, m.mountPath]),
      [
        ['hotplug-disks', '/path'],
        ['fs-data', '/fs-data'],
      ],
    );
    assert.deepStrictEqual(
      container?.volumeDevices?.map((d) => [d.name, d.devicePath]),
      [['blk-data', '/path/blk-data/uid-pvc-blk']],
    );
    assert.deepStrictEqual(
      pod.spec?.volumes?.map((v) => v.name),
      ['hotplug-disks', 'fs-data', 'blk-data', 'ready'],
    );
  });
});
