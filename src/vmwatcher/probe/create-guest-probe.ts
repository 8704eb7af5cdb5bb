import type { KubeConfig } from '@kubernetes/client-node';
import type { GuestProbe } from '../guest-probe.js';
import { agentFilesystemList } from './filesystem-list.js';
import { localVirsh } from './local-virsh.js';
import { podExecVirsh } from './pod-exec-virsh.js';
import { VirshGuestProbe } from './virsh-guest-probe.js';
import type { VirshTransport } from './virsh-transport.js';
import { domainName } from './vmi-disk.js';

/** `voe watch --guest-probe`: none, virsh through pods/exec into virt-launcher, or virsh on this machine (the lab). */
export const GUEST_PROBE_MODES = ['none', 'pods-exec', 'local'] as const;
export type GuestProbeMode = (typeof GUEST_PROBE_MODES)[number];

/**
 * The guest probe of a `--guest-probe` mode: pods-exec runs virsh in each VM's virt-launcher pod
 * (its `compute` container, against the launcher's libvirt URI unless `--libvirt-uri` gives one);
 * local runs virsh against this machine's libvirt (`--libvirt-uri`, default qemu:///system), its
 * domains named as KubeVirt names them. Both fall back to the agent's guest-get-fsinfo through
 * the same virsh where the guest has no shell or refuses guest-exec. none: undefined.
 */
export function createGuestProbe(
  mode: GuestProbeMode,
  kubeConfig: KubeConfig,
  options: { libvirtUri?: string; timeoutMs?: number } = {},
): GuestProbe | undefined {
  if (mode === 'none') return undefined;
  const timeout = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const transport = virshTransportOf(mode, kubeConfig, options);
  return new VirshGuestProbe({
    transport,
    filesystems: agentFilesystemList(transport, domainName),
    ...timeout,
  });
}

/**
 * Where virsh runs for a mode other than none: pods/exec into each VM's virt-launcher pod
 * (podExecVirsh), or this machine's libvirt (localVirsh); `libvirtUri` as `--libvirt-uri` gives it.
 */
export function virshTransportOf(
  mode: Exclude<GuestProbeMode, 'none'>,
  kubeConfig: KubeConfig,
  options: { libvirtUri?: string } = {},
): VirshTransport {
  const uri = options.libvirtUri === undefined ? {} : { uri: options.libvirtUri };
  return mode === 'pods-exec' ? podExecVirsh(kubeConfig, uri) : localVirsh(uri);
}
