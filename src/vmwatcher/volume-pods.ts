import {
  CREATED_BY_LABEL,
  HOTPLUG_POD,
  KUBEVIRT_POD_LABEL,
  LAUNCHER_POD,
  type Pod,
  type VirtualMachineInstance,
} from '../model/index.js';

/** The label selector of the pods the tracker watches. */
export const KUBEVIRT_PODS_SELECTOR = `${KUBEVIRT_POD_LABEL} in (${LAUNCHER_POD},${HOTPLUG_POD})`;

const FINISHED = new Set(['Succeeded', 'Failed']);

/** A pod that runs or may run: not being deleted, not Succeeded or Failed. */
function isCurrent(pod: Pod): boolean {
  return !pod.metadata?.deletionTimestamp && !FINISHED.has(pod.status?.phase ?? '');
}

function newestFirst(a: Pod, b: Pod): number {
  return (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? '');
}

/** The virt-launcher pods of the VMI: label kubevirt.io=virt-launcher, kubevirt.io/created-by = its uid. */
export function launcherPodsOf(vmi: VirtualMachineInstance, pods: readonly Pod[]): Pod[] {
  const uid = vmi.metadata?.uid;
  if (!uid) return [];
  return pods.filter(
    (pod) =>
      pod.metadata?.namespace === vmi.metadata?.namespace &&
      pod.metadata?.labels?.[KUBEVIRT_POD_LABEL] === LAUNCHER_POD &&
      pod.metadata?.labels?.[CREATED_BY_LABEL] === uid,
  );
}

/**
 * The virt-launcher pod that runs the VMI's domain now. During a migration two pods share
 * created-by: `status.migrationState` names them (the source until the migration completed, the
 * target after; the source again when it failed); otherwise the pods listed in
 * `status.activePods`, the one on the VMI's node first; otherwise the newest current launcher.
 */
export function activeLauncher(vmi: VirtualMachineInstance, pods: readonly Pod[]): Pod | undefined {
  const launchers = launcherPodsOf(vmi, pods);
  const named = (name: string | undefined): Pod | undefined =>
    name === undefined ? undefined : launchers.find((pod) => pod.metadata?.name === name);
  const migration = vmi.status?.migrationState;
  if (migration) {
    const pod =
      migration.completed === true && migration.failed !== true
        ? named(migration.targetPod)
        : named(migration.sourcePod);
    if (pod) return pod;
  }
  const node = vmi.status?.nodeName;
  const byNode = (candidates: Pod[]): Pod | undefined =>
    candidates.find((pod) => node !== undefined && pod.spec?.nodeName === node) ??
    [...candidates].sort(newestFirst)[0];
  const activeUids = new Set(Object.keys(vmi.status?.activePods ?? {}));
  const active = launchers.filter(
    (pod) => pod.metadata?.uid !== undefined && activeUids.has(pod.metadata.uid) && isCurrent(pod),
  );
  if (active.length > 0) return byNode(active);
  return byNode(launchers.filter(isCurrent));
}

/** The current hotplug attachment pods of a launcher: label kubevirt.io=hotplug-disk, a controller ownerReference to it. */
export function hotplugPodsOf(launcher: Pod, pods: readonly Pod[]): Pod[] {
  const uid = launcher.metadata?.uid;
  if (!uid) return [];
  return pods.filter(
    (pod) =>
      pod.metadata?.namespace === launcher.metadata?.namespace &&
      pod.metadata?.labels?.[KUBEVIRT_POD_LABEL] === HOTPLUG_POD &&
      (pod.metadata?.ownerReferences ?? []).some(
        (owner) => owner.uid === uid && owner.kind === 'Pod',
      ) &&
      isCurrent(pod),
  );
}

/** How a pod holds a PVC: listed in its volumes, and mounted (volumeMounts) or attached as a device (volumeDevices) by a container. */
export interface ClaimHold {
  listed: boolean;
  mounted: boolean;
  device: boolean;
}

export function claimHold(pod: Pod, claimName: string): ClaimHold {
  const names = new Set(
    (pod.spec?.volumes ?? [])
      .filter((volume) => volume.persistentVolumeClaim?.claimName === claimName)
      .map((volume) => volume.name),
  );
  const containers = pod.spec?.containers ?? [];
  return {
    listed: names.size > 0,
    mounted: containers.some((c) => (c.volumeMounts ?? []).some((m) => names.has(m.name))),
    device: containers.some((c) => (c.volumeDevices ?? []).some((d) => names.has(d.name))),
  };
}

/** The pods holding one VMI volume: the active launcher, and the hotplug pod that lists the claim (the one that mounts it first). */
export interface VolumeHolders {
  launcher: Pod | undefined;
  hotplug: Pod | undefined;
  /** A current hotplug pod of the launcher mounts the claim (volumeMounts) or attaches it (volumeDevices). */
  hotplugHolds: boolean;
}

export function volumeHolders(
  vmi: VirtualMachineInstance,
  pods: readonly Pod[],
  claimName: string,
): VolumeHolders {
  const launcher = activeLauncher(vmi, pods);
  if (!launcher) return { launcher, hotplug: undefined, hotplugHolds: false };
  const listing = hotplugPodsOf(launcher, pods)
    .map((pod) => ({ pod, hold: claimHold(pod, claimName) }))
    .filter(({ hold }) => hold.listed)
    .sort(
      (a, b) => Number(b.hold.mounted || b.hold.device) - Number(a.hold.mounted || a.hold.device),
    );
  const first = listing[0];
  return {
    launcher,
    hotplug: first?.pod,
    hotplugHolds: first !== undefined && (first.hold.mounted || first.hold.device),
  };
}
