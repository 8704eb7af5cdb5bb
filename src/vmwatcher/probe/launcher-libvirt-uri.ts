import type { Pod } from '../../model/index.js';

/** virt-launcher's libvirt for root launchers (KubeVirt cmd/virt-launcher/virt-launcher.go). */
export const ROOT_LAUNCHER_URI = 'qemu:///system';
/** virt-launcher's libvirt for non-root launchers, KubeVirt's default and Harvester's: the virtqemud socket. */
export const NON_ROOT_LAUNCHER_URI = 'qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock';

/** The virt-launcher container where libvirt runs the domain (docs/tracker.md "Upstream facts"). */
export const COMPUTE_CONTAINER = 'compute';

function runAsUserOf(context: unknown): number | undefined {
  const value = (context as { runAsUser?: unknown } | undefined)?.runAsUser;
  return typeof value === 'number' ? value : undefined;
}

/**
 * The user a virt-launcher pod runs its compute container as: the container's
 * securityContext.runAsUser, else the pod's (KubeVirt's template sets the pod's to the VMI's
 * runtime user: 107 for non-root launchers, 0 for root ones). Undefined when neither says. Pure.
 */
export function launcherUser(pod: Pod | undefined): number | undefined {
  const compute = (pod?.spec?.containers ?? []).find(
    (container) => container.name === COMPUTE_CONTAINER,
  );
  return runAsUserOf(compute?.['securityContext']) ?? runAsUserOf(pod?.spec?.['securityContext']);
}

/**
 * The libvirt URI virsh needs in a virt-launcher pod running as `user`: qemu:///system for root
 * (0), the virtqemud socket for any other user and when the pod does not say (non-root is
 * KubeVirt's default). Pure.
 */
export function launcherLibvirtUri(user: number | undefined): string {
  return user === 0 ? ROOT_LAUNCHER_URI : NON_ROOT_LAUNCHER_URI;
}
