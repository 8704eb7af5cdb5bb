import type { HostVmi } from '../host/host-objects.js';
import type { GuestNode, GuestPv, MonitoredVm, Taint } from './guest-objects.js';

/** The taint that marks a guest node out of service (Kubernetes' non-graceful node shutdown). */
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';
/** The value of the out-of-service taint the monitor puts, so it removes only its own. */
export const MONITOR_TAINT_VALUE = 'voe-csi-node-monitor';
/** kubelet's annotation holding each CSI driver's node id (csi.volume.kubernetes.io/nodeid). */
export const NODE_ID_ANNOTATION = 'csi.volume.kubernetes.io/nodeid';

/**
 * The out-of-service taint of the node with effect NoExecute (what Harvester's driver counts,
 * taintWithNoExecute in pkg/controller/node/controller.go): `ours` when it carries the monitor's
 * value, `other` when an operator (or another controller) put it, `none` without.
 */
export type OutOfService = 'none' | 'ours' | 'other';

/** What the monitor knows of one guest node and its host VM. */
export interface NodeFacts {
  name: string;
  deleting: boolean;
  /** The node's Ready condition (undefined: none reported yet). */
  ready: boolean | undefined;
  outOfService: OutOfService;
  /** The guest node's VM name on the host (its CSI node id). */
  vmName: string;
  /** The VM runs: it exists, is Ready and Running, and has an instance. */
  vmRunning: boolean;
  /** The hotpluggable PVC volumes of the VM's spec, in its order. */
  hotplugged: string[];
  /** The volume handles of the guest's PersistentVolumes of this driver. */
  guestVolumes: ReadonlySet<string>;
}

function conditionStatus(
  conditions: ReadonlyArray<{ type?: string; status?: string }> | undefined,
  type: string,
): string | undefined {
  return (conditions ?? []).find((c) => c.type === type)?.status;
}

/** The node's Ready condition as kubelet reports it (False and Unknown: not ready). */
export function nodeReadyOf(node: GuestNode): boolean | undefined {
  const status = conditionStatus(node.status?.conditions, 'Ready');
  return status === undefined ? undefined : status === 'True';
}

/** The node's out-of-service NoExecute taint, and whose it is. */
export function outOfServiceOf(node: GuestNode): OutOfService {
  const taint = (node.spec?.taints ?? []).find(
    (t) => t.key === OUT_OF_SERVICE_TAINT && t.effect === 'NoExecute',
  );
  if (!taint) return 'none';
  return taint.value === MONITOR_TAINT_VALUE ? 'ours' : 'other';
}

/**
 * The guest node's VM name on the host: the node id kubelet recorded for `driver` (the node
 * plugin's NodeGetInfo), else the node name (what Harvester's driver uses: it reads the VM named
 * after the node, getNodeAndVMHealth).
 */
export function vmNameOf(node: GuestNode, driver: string): string {
  const name = node.metadata?.name ?? '';
  const raw = node.metadata?.annotations?.[NODE_ID_ANNOTATION];
  if (!raw) return name;
  try {
    const ids = JSON.parse(raw) as Record<string, unknown>;
    const id = ids[driver];
    return typeof id === 'string' && id ? id : name;
  } catch {
    return name;
  }
}

/**
 * Whether the VM runs: Harvester's driver counts a VM healthy when its Ready condition is True and
 * its printableStatus Running (getNodeAndVMHealth); without a Ready condition the monitor reads
 * KubeVirt's `status.ready`, and it also asks for the VM's instance, which KubeVirt deletes when
 * the VM stops or its host dies.
 */
export function vmRunningOf(vm: MonitoredVm | undefined, vmi: HostVmi | undefined): boolean {
  if (!vm || vm.metadata?.deletionTimestamp) return false;
  const ready = conditionStatus(vm.status?.conditions, 'Ready');
  return (
    (ready === undefined ? vm.status?.ready === true : ready === 'True') &&
    vm.status?.printableStatus === 'Running' &&
    vmi !== undefined &&
    !vmi.metadata?.deletionTimestamp
  );
}

/** The VM's hotpluggable PVC volumes (removeAllHotplugVolumes' selection in Harvester's driver). */
export function hotpluggedOf(vm: MonitoredVm | undefined): string[] {
  return (vm?.spec?.template?.spec?.volumes ?? [])
    .filter((v) => v.persistentVolumeClaim?.hotpluggable === true)
    .map((v) => v.name ?? '')
    .filter((name) => name !== '');
}

/** The volume handles of the guest PVs that `driver` serves. */
export function guestVolumesOf(pvs: readonly GuestPv[], driver: string): Set<string> {
  const handles = new Set<string>();
  for (const pv of pvs)
    if (pv.spec?.csi?.driver === driver && pv.spec.csi.volumeHandle)
      handles.add(pv.spec.csi.volumeHandle);
  return handles;
}

/** The facts of one guest node from the objects read. */
export function nodeFactsOf(input: {
  node: GuestNode;
  driver: string;
  vm: MonitoredVm | undefined;
  vmi: HostVmi | undefined;
  guestVolumes: ReadonlySet<string>;
}): NodeFacts {
  return {
    name: input.node.metadata?.name ?? '',
    deleting: Boolean(input.node.metadata?.deletionTimestamp),
    ready: nodeReadyOf(input.node),
    outOfService: outOfServiceOf(input.node),
    vmName: vmNameOf(input.node, input.driver),
    vmRunning: vmRunningOf(input.vm, input.vmi),
    hotplugged: hotpluggedOf(input.vm),
    guestVolumes: input.guestVolumes,
  };
}

/** The node's taints with the monitor's out-of-service taint added (at the end) or removed. */
export function taintsWith(taints: readonly Taint[], present: boolean): Taint[] {
  const others = taints.filter(
    (t) => !(t.key === OUT_OF_SERVICE_TAINT && t.value === MONITOR_TAINT_VALUE),
  );
  return present
    ? [
        ...others,
        {
          key: OUT_OF_SERVICE_TAINT,
          value: MONITOR_TAINT_VALUE,
          effect: 'NoExecute',
        },
      ]
    : others;
}
