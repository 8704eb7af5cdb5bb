import { AGENT_CONNECTED, type VirtualMachineInstance } from '../../model/index.js';

/** How a guest probe recognises a VMI disk in the guest. */
export interface DiskIdentity {
  /** spec.domain.devices.disks[].serial, when the VM sets one. */
  serial: string | undefined;
  /** virtio, scsi or sata (the disk's, lun's or cdrom's bus; else read from the target's prefix). */
  bus: string | undefined;
  /** The disk's target (vda, sdb) from status.volumeStatus. */
  target: string | undefined;
}

/** The libvirt domain of a VMI, named as KubeVirt names it: `<namespace>_<name>`. */
export function domainName(vmi: VirtualMachineInstance): string {
  return `${vmi.metadata?.namespace ?? ''}_${vmi.metadata?.name ?? ''}`;
}

/** Whether the VMI shows AgentConnected=True. */
export function agentConnected(vmi: VirtualMachineInstance): boolean {
  return (vmi.status?.conditions ?? []).some(
    (condition) => condition.type === AGENT_CONNECTED && condition.status === 'True',
  );
}

/**
 * What names a Windows guest in the VMI's status.guestOSInfo (KubeVirt copies the agent's
 * guest-get-osinfo, whose id is "mswindows" on Windows): its pretty name, else its name, else
 * "Windows"; undefined for any other guest or when no agent reported. Pure.
 */
export function windowsGuest(vmi: VirtualMachineInstance): string | undefined {
  const info = vmi.status?.guestOSInfo;
  if (info?.id !== 'mswindows' && !/windows/i.test(info?.name ?? '')) return undefined;
  return info?.prettyName || info?.name || 'Windows';
}

/** The serial and bus the VMI gives the disk of `volumeName`, with its target. Pure. */
export function diskIdentity(
  vmi: VirtualMachineInstance,
  volumeName: string,
  target: string | undefined,
): DiskIdentity {
  const disk = (vmi.spec?.domain?.devices?.disks ?? []).find((entry) => entry.name === volumeName);
  const serial = disk?.serial?.trim() || undefined;
  const bus =
    disk?.disk?.bus ??
    disk?.lun?.bus ??
    disk?.cdrom?.bus ??
    (target?.startsWith('vd') ? 'virtio' : target?.startsWith('sd') ? 'scsi' : undefined);
  return { serial, bus, target };
}
