import { AGENT_PORT_NAME, type GuestAgentMode } from './guest-init.js';
import { VmLabError } from './vm-lab-error.js';

/** A disk of the lab domain: a raw file shown to the guest on a bus, with an optional serial. */
export interface LabDisk {
  /** The backing file (raw). */
  file: string;
  /** libvirt's target: vda, vdb (virtio) or sda, sdb (scsi, sata); not the guest's name. */
  target: string;
  bus: 'virtio' | 'scsi' | 'sata';
  /** A read-only cdrom (Harvester's SATA cdrom) instead of a disk. */
  device?: 'disk' | 'cdrom';
  /** Attached to the running domain (`virsh attach-device --live`), as KubeVirt hotplugs a volume. */
  hotplug?: boolean;
  serial?: string;
  /** The PVC's volumeMode (Block when not given): a raw device, or disk.img on its filesystem. */
  volumeMode?: 'Block' | 'Filesystem';
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
  /** A virtio NIC on QEMU's user-mode network (`voe.net=user`): the guest reaches the host's loopback at 10.0.2.2. */
  userNetwork?: boolean;
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
 * One disk's `<disk>` element (libvirt assigns its address), as KubeVirt's virt-launcher converts a
 * VMI disk (pkg/virt-launcher/virtwrap/converter, Convert_v1_Disk_To_api_Disk: the bus and target,
 * `<readonly/>` for a cdrom, the serial when the VMI gives one): a raw file, read-only for a cdrom. What the domain's XML lists and what
 * `virsh attach-device` takes for a hotplugged disk. Pure.
 */
export function labDiskXml(disk: LabDisk, indent = ''): string {
  const cdrom = disk.device === 'cdrom';
  return (
    `${indent}<disk type='file' device='${cdrom ? 'cdrom' : 'disk'}'>\n` +
    `${indent}  <driver name='qemu' type='raw'${cdrom ? '' : " cache='none'"}/>\n` +
    `${indent}  <source file='${xml(disk.file)}'/>\n` +
    `${indent}  <target dev='${xml(disk.target)}' bus='${disk.bus}'/>\n` +
    (cdrom ? `${indent}  <readonly/>\n` : '') +
    (disk.serial ? `${indent}  <serial>${xml(disk.serial)}</serial>\n` : '') +
    `${indent}</disk>\n`
  );
}

/**
 * The lab domain's XML (docs/tracker.md "The VM lab"): `type='qemu'` (TCG: no KVM here),
 * the q35 machine KubeVirt uses, direct kernel boot of the lab guest, each disk but the hotplugged
 * ones a raw file on virtio-blk, SATA (a cdrom) or a virtio-scsi controller (there whenever a disk,
 * hotplugged too, is on SCSI) with its serial if any, the guest agent's channel as KubeVirt defines it, the serial
 * console into a file. Values are XML-escaped; a filesystemOn that is no device name is refused
 * (VMLAB_DOMAIN_FAILED). Pure.
 */
export function labDomainXml(spec: LabDomainSpec): string {
  const disks = spec.disks
    .filter((disk) => disk.hotplug !== true)
    .map((disk) => labDiskXml(disk, '    '))
    .join('');
  const scsi = spec.disks.some((disk) => disk.bus === 'scsi')
    ? `    <controller type='scsi' index='0' model='virtio-scsi'/>\n`
    : '';
  if (spec.filesystemOn !== undefined && !/^[a-z]+[0-9]*$/.test(spec.filesystemOn))
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `${JSON.stringify(spec.filesystemOn)} is not a guest device name`,
    );
  const fs =
    (spec.filesystemOn === undefined ? '' : ` voe.fs=${spec.filesystemOn}`) +
    (spec.userNetwork ? ' voe.net=user' : '');
  const nic = spec.userNetwork
    ? `    <interface type='user'>\n      <model type='virtio'/>\n    </interface>\n`
    : '';
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
    nic +
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
