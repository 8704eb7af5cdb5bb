import { AGENT_PORT_NAME, type GuestAgentMode } from './guest-init.js';
import { VmLabError } from './vm-lab-error.js';

/** A disk of the lab domain: a raw file shown to the guest on a bus, with an optional serial. */
export interface LabDisk {
  /** The backing file (raw). */
  file: string;
  /** vda, vdb (virtio) or sda, sdb (scsi). */
  target: string;
  bus: 'virtio' | 'scsi';
  serial?: string;
}

export interface LabDomainSpec {
  /** `<namespace>_<vmi>`, as KubeVirt names its domains. */
  name: string;
  vmlinuz: string;
  initramfs: string;
  disks: readonly LabDisk[];
  agent: GuestAgentMode;
  /** Where the guest's serial console is written. */
  consoleLog: string;
  memoryMiB?: number;
  /**
   * Whether virtio-scsi tells the guest that a disk's capacity changed (its CHANGE feature, on by
   * default); off, the guest sees a SCSI disk grow only once it rescans it, as on a hypervisor
   * without that feature.
   */
  scsiChangeEvents?: boolean;
  /** The guest's device (vda) to make an ext2 filesystem on and mount on /data at boot (`voe.fs=`). */
  filesystemOn?: string;
}

function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll("'", '&apos;')
    .replaceAll('"', '&quot;');
}

/**
 * The lab domain's XML (docs/tracker.md "The VM lab"): `type='qemu'` (TCG: no KVM here),
 * the q35 machine KubeVirt uses, direct kernel boot of the lab guest, each disk a raw file on
 * virtio-blk or a virtio-scsi controller with its serial, the guest agent's channel as KubeVirt defines it, the serial
 * console into a file. Values are XML-escaped; a filesystemOn that is no device name is refused
 * (VMLAB_DOMAIN_FAILED). Pure.
 */
export function labDomainXml(spec: LabDomainSpec): string {
  const disks = spec.disks
    .map(
      (disk) =>
        `    <disk type='file' device='disk'>\n` +
        `      <driver name='qemu' type='raw' cache='none'/>\n` +
        `      <source file='${xml(disk.file)}'/>\n` +
        `      <target dev='${xml(disk.target)}' bus='${disk.bus}'/>\n` +
        (disk.serial ? `      <serial>${xml(disk.serial)}</serial>\n` : '') +
        `    </disk>\n`,
    )
    .join('');
  const scsi = spec.disks.some((disk) => disk.bus === 'scsi')
    ? `    <controller type='scsi' index='0' model='virtio-scsi'/>\n`
    : '';
  if (spec.filesystemOn !== undefined && !/^[a-z]+[0-9]*$/.test(spec.filesystemOn))
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `${JSON.stringify(spec.filesystemOn)} is not a guest device name`,
    );
  const fs = spec.filesystemOn === undefined ? '' : ` voe.fs=${spec.filesystemOn}`;
  const noChangeEvents =
    spec.scsiChangeEvents === false
      ? `  <qemu:commandline>\n` +
        `    <qemu:arg value='-global'/>\n` +
        `    <qemu:arg value='virtio-scsi-pci.param_change=off'/>\n` +
        `  </qemu:commandline>\n`
      : '';
  return (
    `<domain type='qemu'${noChangeEvents ? " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" : ''}>\n` +
    `  <name>${xml(spec.name)}</name>\n` +
    `  <memory unit='MiB'>${spec.memoryMiB ?? 256}</memory>\n` +
    `  <vcpu>1</vcpu>\n` +
    `  <os>\n` +
    `    <type arch='x86_64' machine='q35'>hvm</type>\n` +
    `    <kernel>${xml(spec.vmlinuz)}</kernel>\n` +
    `    <initrd>${xml(spec.initramfs)}</initrd>\n` +
    `    <cmdline>console=ttyS0 panic=-1 quiet voe.agent=${spec.agent}${fs}</cmdline>\n` +
    `  </os>\n` +
    `  <on_poweroff>destroy</on_poweroff>\n` +
    `  <on_reboot>destroy</on_reboot>\n` +
    `  <on_crash>destroy</on_crash>\n` +
    `  <devices>\n` +
    disks +
    scsi +
    `    <channel type='unix'>\n` +
    `      <target type='virtio' name='${AGENT_PORT_NAME}'/>\n` +
    `    </channel>\n` +
    `    <serial type='file'>\n` +
    `      <source path='${xml(spec.consoleLog)}'/>\n` +
    `      <target port='0'/>\n` +
    `    </serial>\n` +
    `    <memballoon model='none'/>\n` +
    `  </devices>\n` +
    noChangeEvents +
    `</domain>\n`
  );
}
