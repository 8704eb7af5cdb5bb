import { VoeError } from '../../errors/index.js';

/** Stable codes of the VM lab's errors (docs/errors.md "VM lab"). */
export const VmLabErrorCode = {
  PackagesMissing: 'VMLAB_PACKAGES_MISSING',
  InstallFailed: 'VMLAB_INSTALL_FAILED',
  InitramfsFailed: 'VMLAB_INITRAMFS_FAILED',
  LibvirtFailed: 'VMLAB_LIBVIRT_FAILED',
  DomainFailed: 'VMLAB_DOMAIN_FAILED',
} as const;

export type VmLabErrorCode = (typeof VmLabErrorCode)[keyof typeof VmLabErrorCode];

export class VmLabError extends VoeError<VmLabErrorCode> {}
