import { describe, it } from 'mocha';
import { assert } from 'chai';
import {
  NON_ROOT_LAUNCHER_URI,
  ROOT_LAUNCHER_URI,
  launcherLibvirtUri,
  launcherUser,
} from '../../../../src/vmwatcher/probe/launcher-libvirt-uri.js';
import { launcherVirshArgv } from '../../../../src/vmwatcher/probe/pod-exec-virsh.js';
import { leanPod } from '../../../../src/model/lean-objects.js';
import type { Pod } from '../../../../src/model/index.js';

/** A virt-launcher pod as KubeVirt's template writes its security contexts (runtime user 107 or 0). */
function launcher(podUser: number | undefined, computeUser?: number): Pod {
  return {
    metadata: { name: 'virt-launcher-vm1-x7k2p', namespace: 'default' },
    spec: {
      ...(podUser === undefined
        ? {}
        : { securityContext: { runAsUser: podUser, runAsNonRoot: podUser !== 0 } }),
      containers: [
        {
          name: 'compute',
          ...(computeUser === undefined ? {} : { securityContext: { runAsUser: computeUser } }),
        },
      ],
    },
  };
}

describe('the launcher libvirt URI', () => {
  const table: Array<[string, Pod | undefined, number | undefined, string]> = [
    ['non-root launcher (107): the virtqemud socket', launcher(107), 107, NON_ROOT_LAUNCHER_URI],
    ['root launcher (0): qemu:///system', launcher(0), 0, ROOT_LAUNCHER_URI],
    ['the compute container wins over the pod', launcher(107, 0), 0, ROOT_LAUNCHER_URI],
    [
      "a pod that says nothing: non-root, KubeVirt's default",
      launcher(undefined),
      undefined,
      NON_ROOT_LAUNCHER_URI,
    ],
    ['no pod found: non-root', undefined, undefined, NON_ROOT_LAUNCHER_URI],
  ];
  for (const [name, pod, user, uri] of table)
    it(name, () => {
      assert.strictEqual(launcherUser(pod), user);
      assert.strictEqual(launcherLibvirtUri(launcherUser(pod)), uri);
      // The tracker's caches hold lean pods: the user survives the projection.
      if (pod) assert.strictEqual(launcherUser(leanPod(pod)), user);
    });

  const args = ['domblkinfo', 'default_vm1', 'vda'];
  const argv: Array<[string, number | undefined, string | undefined, string[]]> = [
    ['non-root launcher', 107, undefined, ['virsh', '-c', NON_ROOT_LAUNCHER_URI, ...args]],
    ['root launcher', 0, undefined, ['virsh', '-c', 'qemu:///system', ...args]],
    [
      '--libvirt-uri overrides a non-root launcher',
      107,
      'qemu:///custom',
      ['virsh', '-c', 'qemu:///custom', ...args],
    ],
    [
      '--libvirt-uri overrides a root launcher',
      0,
      'qemu:///custom',
      ['virsh', '-c', 'qemu:///custom', ...args],
    ],
  ];
  for (const [name, user, uri, expected] of argv)
    it(`argv: ${name}`, () =>
      assert.deepStrictEqual(
        launcherVirshArgv(
          { namespace: 'default', launcherPod: 'p', launcherUser: user },
          args,
          uri,
        ),
        expected,
      ));
});
