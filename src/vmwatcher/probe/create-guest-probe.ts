import type { KubeConfig } from '@kubernetes/client-node';
import type { GuestProbe } from '../guest-probe.js';
import { agentFilesystemList, apiFilesystemList } from './filesystem-list.js';
import { localVirsh } from './local-virsh.js';
import { podExecVirsh } from './pod-exec-virsh.js';
import { VirshGuestProbe } from './virsh-guest-probe.js';
import { domainName } from './vmi-disk.js';

/** `voe watch --guest-probe`: none, virsh through pods/exec into virt-launcher, or virsh on this machine (the lab). */
export const GUEST_PROBE_MODES = ['none', 'pods-exec', 'local'] as const;
export type GuestProbeMode = (typeof GUEST_PROBE_MODES)[number];

/**
 * The guest probe of a `--guest-probe` mode: pods-exec runs virsh in each VM's virt-launcher pod
 * (its `compute` container, against the launcher's libvirt URI unless `--libvirt-uri` gives one)
 * and falls back to the VMI's filesystemlist subresource; local runs
 * virsh against this machine's libvirt (`--libvirt-uri`, default qemu:///system), its domains
 * named as KubeVirt names them, and falls back to the agent's guest-get-fsinfo. none: undefined.
 */
export function createGuestProbe(
  mode: GuestProbeMode,
  kubeConfig: KubeConfig,
  options: { libvirtUri?: string; timeoutMs?: number } = {},
): GuestProbe | undefined {
  if (mode === 'none') return undefined;
  const timeout = options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs };
  const uri = options.libvirtUri === undefined ? {} : { uri: options.libvirtUri };
  if (mode === 'pods-exec')
    return new VirshGuestProbe({
      transport: podExecVirsh(kubeConfig, uri),
      filesystems: apiFilesystemList(kubeConfig),
      ...timeout,
    });
  const transport = localVirsh(uri);
  return new VirshGuestProbe({
    transport,
    filesystems: agentFilesystemList(transport, domainName),
    ...timeout,
  });
}
