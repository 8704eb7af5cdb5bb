/**
 * The production transport of the guest probe (virsh through pods/exec into virt-launcher's
 * compute container) against a real kube-apiserver. No kubelet runs here, so the API server
 * cannot reach the pod's node: what is checked is the way there (@kubernetes/client-node's Exec
 * with the command as an array) and that every failure comes back as a coded GuestProbeError,
 * within the probe's deadline. The commands themselves run against a real libvirt in
 * guest-probe-vm.alone.test.ts (the local transport); the exec itself, through the API server to a
 * kubelet actor with the chart's ServiceAccount, in pod-exec-virsh-as-chart.test.ts.
 */
import { describe, it } from 'mocha';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import { ExpansionActors } from '../../../src/demo/index.js';
import type { VirtualMachineInstance } from '../../../src/model/index.js';
import { GuestProbeError } from '../../../src/vmwatcher/probe/guest-probe-error.js';
import { podExecVirsh } from '../../../src/vmwatcher/probe/pod-exec-virsh.js';
import { vmi } from '../../../src/demo/staged-objects.js';
import { expectRejection } from '../../support/expect-error.js';
import { useSharedControlPlane } from '../../support/shared-control-plane.js';

const { kubeConfig, namespace } = await useSharedControlPlane('pod-exec-virsh');

const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };

describe('virsh through pods/exec', () => {
  it('answers PROBE_VIRSH_FAILED naming the pod when the API server cannot exec into it', async () => {
    const instance = vmi('vm-exec', { namespace });
    await requestJson(kubeConfig, {
      method: 'POST',
      path: resourcePath({ ...VMIS, namespace }),
      body: { ...instance, metadata: { name: 'vm-exec', namespace } },
    });
    const stored = await requestJson<VirtualMachineInstance>(kubeConfig, {
      method: 'GET',
      path: resourcePath({ ...VMIS, namespace, name: 'vm-exec' }),
    });
    const launcher = await new ExpansionActors(kubeConfig).createLauncher(stored, {
      name: 'virt-launcher-vm-exec-abcde',
    });
    const transport = podExecVirsh(kubeConfig);
    await expectRejection(
      transport.virsh(
        { namespace, launcherPod: launcher.metadata?.name },
        ['domblkinfo', `${namespace}_vm-exec`, 'vda'],
        AbortSignal.timeout(20_000),
      ),
      (error: GuestProbeError) =>
        error instanceof GuestProbeError &&
        error.code === 'PROBE_VIRSH_FAILED' &&
        error.message.includes(`${namespace}/virt-launcher-vm-exec-abcde (compute)`),
    );
  });

  it('answers PROBE_VIRSH_FAILED without a launcher pod, and PROBE_TIMEOUT once the deadline passed', async () => {
    const transport = podExecVirsh(kubeConfig);
    await expectRejection(
      transport.virsh(
        { namespace, launcherPod: undefined },
        ['domblkinfo', 'x', 'vda'],
        AbortSignal.timeout(5_000),
      ),
      (error: GuestProbeError) =>
        error.code === 'PROBE_VIRSH_FAILED' && /no running virt-launcher pod/.test(error.message),
    );
    const aborted = new AbortController();
    aborted.abort();
    await expectRejection(
      transport.virsh(
        { namespace, launcherPod: 'virt-launcher-none' },
        ['domblkinfo', 'x', 'vda'],
        aborted.signal,
      ),
      (error: GuestProbeError) => error.code === 'PROBE_TIMEOUT',
    );
  });
});
