import type { NodeFacts } from './node-monitor-facts.js';

/**
 * What the monitor does for one guest node:
 * - `taint`: put its out-of-service taint on the node (Kubernetes then force-deletes the node's
 *   pods and detaches their volumes without waiting for the dead kubelet);
 * - `untaint`: remove its own taint again;
 * - `release`: unplug these guest volumes from the node's VM on the host;
 * - `none`: nothing, and why.
 */
export type NodeAction =
  | { kind: 'none'; why: string }
  | { kind: 'taint' }
  | { kind: 'untaint' }
  | { kind: 'release'; vm: string; volumes: string[] };

/**
 * The decision of Harvester's node monitor (handleNodeAndVMHealth in harvester-csi-driver
 * pkg/controller/node/controller.go), with three differences: a VM that does not exist counts as
 * not running (Harvester's retries the read for ever); only the monitor's own taint is removed (an
 * operator's stays until the operator removes it); only the guest's own volumes (handles of its
 * PVs of this driver) are unplugged, never a volume hotplugged into the VM by other means. Pure.
 *
 * | node Ready | VM running | out-of-service taint | action                     |
 * | ---------- | ---------- | -------------------- | -------------------------- |
 * | unknown    | any        | any                  | none (no Ready condition)  |
 * | yes        | yes        | the monitor's        | untaint                    |
 * | any        | yes        | other / none         | none                       |
 * | yes        | no         | any                  | none (kubelet still posts) |
 * | no         | no         | none                 | taint                      |
 * | no         | no         | any                  | release the guest volumes  |
 */
export function decideNodeAction(facts: NodeFacts): NodeAction {
  if (facts.deleting) return { kind: 'none', why: 'the node is being deleted' };
  if (facts.ready === undefined)
    return { kind: 'none', why: 'the node reports no Ready condition' };
  if (facts.vmRunning) {
    if (facts.ready && facts.outOfService === 'ours') return { kind: 'untaint' };
    return { kind: 'none', why: 'the node VM runs' };
  }
  if (facts.ready) return { kind: 'none', why: 'the node VM does not run, but the node is Ready' };
  if (facts.outOfService === 'none') return { kind: 'taint' };
  const volumes = facts.hotplugged.filter((name) => facts.guestVolumes.has(name));
  if (volumes.length === 0)
    return { kind: 'none', why: 'the node VM holds no hotplugged volume of this guest' };
  return { kind: 'release', vm: facts.vmName, volumes };
}
