import type { HostVm, HostVmi } from '../host/host-objects.js';

/**
 * Where the hotplug of `volume` into a guest node's VM stands:
 * - `attached`: the VM's spec lists the volume and the VMI's status shows it hotplugged;
 * - `attaching`: the spec lists it, the VMI does not show it hotplugged yet;
 * - `detaching`: the spec no longer lists it, the VMI still shows it;
 * - `detached`: neither.
 */
export type Attachment = 'attached' | 'attaching' | 'detaching' | 'detached';

export function attachmentOf(
  vm: HostVm | undefined,
  vmi: HostVmi | undefined,
  volume: string,
): Attachment {
  const listed = (vm?.spec?.template?.spec?.volumes ?? []).some((v) => v.name === volume);
  const status = (vmi?.status?.volumeStatus ?? []).find((s) => s.name === volume);
  const hotplugged = status?.hotplugVolume !== undefined && status.hotplugVolume !== null;
  if (listed) return hotplugged ? 'attached' : 'attaching';
  return status !== undefined ? 'detaching' : 'detached';
}

/** Whether the VMI shows the volume hotplugged. */
export function vmiShowsVolume(vmi: HostVmi | undefined, volume: string): boolean {
  const status = (vmi?.status?.volumeStatus ?? []).find((s) => s.name === volume);
  return status?.hotplugVolume !== undefined && status.hotplugVolume !== null;
}

/**
 * The guest node VMs (other than `node`) that hold `volume`: their spec lists it, or their
 * instance still lists it in its status. Pure.
 */
export function nodesHoldingElsewhere(
  vms: readonly HostVm[],
  vmis: readonly HostVmi[],
  volume: string,
  node: string,
): string[] {
  const holding = new Set<string>();
  for (const vm of vms)
    if ((vm.spec?.template?.spec?.volumes ?? []).some((v) => v.name === volume))
      holding.add(vm.metadata?.name ?? '');
  for (const vmi of vmis) if (vmiListsVolume(vmi, volume)) holding.add(vmi.metadata?.name ?? '');
  holding.delete(node);
  return [...holding].sort();
}

/** Whether the VMI still lists the volume at all (while it is unplugged, KubeVirt shows it Detaching). */
export function vmiListsVolume(vmi: HostVmi | undefined, volume: string): boolean {
  return (vmi?.status?.volumeStatus ?? []).some((s) => s.name === volume);
}
