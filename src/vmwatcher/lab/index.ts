export { VmLabError, VmLabErrorCode } from './vm-lab-error.js';
export { findGuestPackages, packagesDir, type GuestPackages } from './guest-packages.js';
export { moduleDepends, moduleLoadOrder, moduleName } from './kernel-modules.js';
export { newcArchive, type NewcEntry } from './newc-archive.js';
export {
  AGENT_PORT_NAME,
  GUEST_INIT,
  GUEST_READY_LINE,
  type GuestAgentMode,
} from './guest-init.js';
export { guestImage, GUEST_MODULES, sharedLibraries, type GuestImage } from './guest-initramfs.js';
export { startLibvirt, type LibvirtDaemons } from './libvirt-daemons.js';
export { labDomainXml, type LabDisk, type LabDomainSpec } from './lab-domain.js';
export { startLabVm, type LabVm, type LabVmOptions } from './lab-vm.js';
export { virtHandlerExpands } from './virt-handler-actor.js';
export { installVmLab, installerPath } from './install-vm-lab.js';
