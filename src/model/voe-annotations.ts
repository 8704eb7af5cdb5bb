/** The VM annotation by which a VM opts out of the tracker's guest probe: value "off". */
export const GUEST_PROBE_ANNOTATION = 'storage.voe.dev/guest-probe';

/**
 * The annotation by which a VM, or a Namespace for its VMs, opts in to the tracker's growth of
 * the guest's partition, LVM and filesystem: "true"; a VM's "false" opts it out whatever its
 * Namespace says. Only with the cluster-wide switch on (voe watch --guest-filesystem-growth).
 */
export const GROW_GUEST_FILESYSTEM_ANNOTATION = 'storage.voe.dev/grow-guest-filesystem';
