/**
 * `virsh dumpxml` of a running domain with Harvester's disk layout and no serials: a virtio root
 * disk, a SATA cdrom, and two SCSI hotplug disks on a virtio-scsi controller, in libvirt's shape
 * (q35 with PCIe root ports, as KubeVirt's domains are). libvirt names them vda, sda (cdrom), sdb
 * and sdc; a Linux guest names the cdrom sr0 and the SCSI disks sda and sdb.
 */
export const HARVESTER_DOMAIN_XML = `<domain type='kvm' id='1'>
  <name>default_vm1</name>
  <devices>
    <disk type='block' device='disk' model='virtio-non-transitional'>
      <driver name='qemu' type='raw' cache='none' error_policy='stop' discard='unmap'/>
      <source dev='/dev/rootdisk' index='3'/>
      <target dev='vda' bus='virtio'/>
      <alias name='ua-rootdisk'/>
      <address type='pci' domain='0x0000' bus='0x07' slot='0x00' function='0x0'/>
    </disk>
    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw' error_policy='stop'/>
      <target dev='sda' bus='sata'/>
      <readonly/>
      <alias name='ua-cdrom'/>
      <address type='drive' controller='0' bus='0' target='0' unit='0'/>
    </disk>
    <disk type='block' device='disk'>
      <driver name='qemu' type='raw' cache='none' error_policy='stop' discard='unmap'/>
      <source dev='/var/run/kubevirt/hotplug-disks/data-a' index='4'/>
      <target dev='sdb' bus='scsi'/>
      <alias name='ua-data-a'/>
      <address type='drive' controller='0' bus='0' target='0' unit='0'/>
    </disk>
    <disk type='block' device='disk'>
      <driver name='qemu' type='raw' cache='none' error_policy='stop' discard='unmap'/>
      <source dev='/var/run/kubevirt/hotplug-disks/data-b' index='5'/>
      <target dev='sdc' bus='scsi'/>
      <alias name='ua-data-b'/>
      <address type='drive' controller='0' bus='0' target='0' unit='1'/>
    </disk>
    <controller type='sata' index='0'>
      <alias name='ide'/>
      <address type='pci' domain='0x0000' bus='0x00' slot='0x1f' function='0x2'/>
    </controller>
    <controller type='scsi' index='0' model='virtio-non-transitional'>
      <alias name='scsi0'/>
      <address type='pci' domain='0x0000' bus='0x06' slot='0x00' function='0x0'/>
    </controller>
  </devices>
</domain>`;
