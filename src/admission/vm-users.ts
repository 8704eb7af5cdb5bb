import type { ResizeSnapshot } from './resize-snapshot.js';
import { isVmRunning, vmHotplugs, isVmiRunning, vmiHotplugs, vmNameOfVmi } from '../model/index.js';

/** Who uses a PVC, as the decision reads it from the snapshot's VMs and VMIs. Keys are `namespace/name` of VMs. */
export interface VmUsers {
  /**
   * VMs running with the PVC: by their spec (Harvester's test, printableStatus != "Stopped"), or
   * by a running VMI naming it (keyed by its VM, or by the VMI's own name when no VM controls it).
   */
  running: string[];
  /** VMs naming the PVC in their spec, none of them running. */
  stopped: string[];
  /** Of `running`: those whose running VMI has the PVC while their VM's spec does not, as messages name them ("VM ns/a", "VMI ns/b (no VM)"). */
  instanceOnly: string[];
  /** VMs hotplugging the PVC: in their spec (running or not, as Harvester), or on their running VMI. */
  hotplugging: string[];
  /** Of `hotplugging`: those hotplugging it on their running VMI only, labelled as `instanceOnly`. */
  hotpluggingInstanceOnly: string[];
}

const keyOf = (namespace: string | undefined, name: string | undefined): string =>
  `${namespace ?? ''}/${name ?? ''}`;

/**
 * Reads the VMs using the PVC `name` from the snapshot: the VMs whose spec names it (Harvester's
 * index) and the VMIs whose volumes name it. A running VMI counts as its VM running with the PVC
 * even when the VM's spec does not name it (hotplugged with `virtctl addvolume` without
 * `--persist`, which writes the VMI's spec only; or removed from the VM's spec while it runs), and
 * its hotplugged volumes count as hotplugged. VMIs that no longer run (Succeeded, Failed) are not
 * read. Pure.
 */
export function vmUsers(snapshot: ResizeSnapshot, name: string): VmUsers {
  // On the hot path of every review: one pass over the (few) VMs and VMIs, into small arrays used
  // as ordered sets (a key added again keeps its first place; a label set again is replaced).
  const vmKeys: string[] = [];
  const running: string[] = [];
  const hotplugging: string[] = [];
  for (const vm of snapshot.vms) {
    const key = keyOf(vm.metadata?.namespace, vm.metadata?.name);
    addOnce(vmKeys, key);
    if (isVmRunning(vm)) addOnce(running, key);
    if (vmHotplugs(vm, name)) addOnce(hotplugging, key);
  }
  const instanceOnly: Array<[string, string]> = [];
  const hotpluggingInstanceOnly: Array<[string, string]> = [];
  for (const vmi of snapshot.vmis ?? []) {
    if (!isVmiRunning(vmi)) continue;
    const vmName = vmNameOfVmi(vmi);
    const key = keyOf(vmi.metadata?.namespace, vmName ?? vmi.metadata?.name);
    const label = vmName === undefined ? `VMI ${key} (no VM)` : `VM ${key}`;
    addOnce(running, key);
    if (!vmKeys.includes(key)) setLabel(instanceOnly, key, label);
    if (vmiHotplugs(vmi, name) && !hotplugging.includes(key)) {
      hotplugging.push(key);
      setLabel(hotpluggingInstanceOnly, key, label);
    }
  }
  return {
    running,
    stopped: running.length === 0 ? vmKeys : [],
    instanceOnly: instanceOnly.map(([, label]) => label),
    hotplugging,
    hotpluggingInstanceOnly: hotpluggingInstanceOnly.map(([, label]) => label),
  };
}

function addOnce(list: string[], key: string): void {
  if (!list.includes(key)) list.push(key);
}

function setLabel(labels: Array<[string, string]>, key: string, label: string): void {
  const found = labels.find((entry) => entry[0] === key);
  if (found) found[1] = label;
  else labels.push([key, label]);
}
