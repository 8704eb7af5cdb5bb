/**
 * What grows a disk whose VMI has the new size while ExpandDisks is off (so KubeVirt is older
 * than v1.9, where the gate became GA), for the ExpandDisksOff message (docs/tracker.md
 * "ExpandDisks"). The gate also guards the offline growth of a Filesystem-mode disk.img before
 * v1.9 (v1.8.0 virtwrap/manager.go shouldExpandOffline returns false without it): restarting
 * such a VM does not grow its disk, only turning the gate on does. A Block-mode disk is the
 * device itself, which QEMU opens at its grown size at the next start. Pure.
 */
export function expandDisksOffRemedy(options: {
  volumeMode: string | undefined;
  /** The KubeVirt CR's status.observedKubeVirtVersion, when known. */
  version: string | undefined;
  /** ExpandDisks is listed in disabledFeatureGates (and not in featureGates). */
  disabledOnly: boolean;
}): string {
  const enable = options.disabledOnly
    ? 'Remove ExpandDisks from the KubeVirt CR\'s disabledFeatureGates and run "voe enable" (adds it to featureGates)'
    : 'Run "voe enable" (adds ExpandDisks to the KubeVirt CR\'s featureGates)';
  const kubeVirt = options.version ? `KubeVirt ${options.version}` : 'KubeVirt before v1.9';
  if (options.volumeMode === 'Block')
    return `${enable}: virt-handler then grows the disk of the running VM at its next sync; or restart the VM: QEMU opens the grown block device at its new size at the next start.`;
  return (
    `${enable}: virt-handler then grows the disk of the running VM at its next sync. ` +
    `Restarting the VM alone does not help: on ${kubeVirt} ExpandDisks also gates the growth of a Filesystem-mode disk.img at start, until KubeVirt v1.9 where the gate is GA.`
  );
}
