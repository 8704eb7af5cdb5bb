import { formatBytes, parseQuantityCeil } from '../kube/index.js';
import type { AdmissionOptions, NamespacePolicies } from '../admission/index.js';
import { isVmiRunning, pvcKeysOfVm, pvcKeysOfVmi, vmNameOfVmi } from '../model/index.js';
import { checkResize, type CheckResult } from '../check/index.js';
import type { AdmissionCaches } from '../host-cache/index.js';

/** A PVC a VM uses: what its update would get (`voe check`'s answer), and the VMs using it. */
export interface SurveyRow extends CheckResult {
  found: true;
  /** The VMs using the PVC, e.g. "vm1 (Running)", "vm2 (Running; on its VMI only)". */
  vms: string[];
}

/** A PVC a VM names that does not exist (yet): nothing to grow, listed so that the operator sees it. */
export interface SurveyMissingClaim {
  /** namespace/name */
  pvc: string;
  found: false;
  vms: string[];
  message: string;
}

export type SurveyEntry = SurveyRow | SurveyMissingClaim;

/**
 * Every PVC VMs name (namespace/name, sorted), with the VMs naming it; and the PVCs a running VMI
 * has that its VM's spec does not name (hotplugged without --persist), with that VM marked so.
 */
function claimsOfVms(
  caches: AdmissionCaches,
): Array<{ namespace: string; name: string; vms: string[] }> {
  const users = new Map<string, string[]>();
  for (const vm of caches.vms.list()) {
    const label = `${vm.metadata?.name ?? '?'} (${vm.status?.printableStatus ?? 'no status'})`;
    for (const key of pvcKeysOfVm(vm)) users.set(key, [...(users.get(key) ?? []), label]);
  }
  for (const vmi of caches.vmis.list().filter(isVmiRunning)) {
    const vmName = vmNameOfVmi(vmi);
    const vm = vmName === undefined ? undefined : caches.vms.get(vmi.metadata?.namespace, vmName);
    const named = new Set(vm ? pvcKeysOfVm(vm) : []);
    const phase = vmi.status?.phase || 'no phase';
    const label =
      vmName === undefined
        ? `VMI ${vmi.metadata?.name ?? '?'} (${phase}, no VM)`
        : `${vmName} (${phase}; on its VMI only)`;
    for (const key of pvcKeysOfVmi(vmi))
      if (!named.has(key)) users.set(key, [...(users.get(key) ?? []), label]);
  }
  return [...users]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, vms]) => {
      const [namespace = '', name = ''] = key.split('/');
      return { namespace, name, vms };
    });
}

/** The namespaces of the existing PVCs VMs use: those whose LimitRanges and ResourceQuotas the survey needs. */
export function surveyedNamespaces(caches: AdmissionCaches): string[] {
  const namespaces = claimsOfVms(caches)
    .filter(({ namespace, name }) => caches.pvcs.get(namespace, name) !== undefined)
    .map(({ namespace }) => namespace);
  return [...new Set(namespaces)].sort();
}

/**
 * The read-only survey's answers: for every PVC a VM (or only its running VMI) names (sorted by namespace/name), what the
 * user's update would get if its request grew by `increment` bytes: `voe check`'s decision with
 * the namespace's policies (`policies` by namespace, as readNamespacePolicies reads them). A PVC
 * that does not exist is a SurveyMissingClaim, not left out. Pure.
 */
export function surveyRows(
  caches: AdmissionCaches,
  admission: AdmissionOptions,
  increment: bigint,
  policies: ReadonlyMap<string, NamespacePolicies>,
): SurveyEntry[] {
  return claimsOfVms(caches).map(({ namespace, name, vms }): SurveyEntry => {
    const pvc = caches.pvcs.get(namespace, name);
    if (pvc === undefined) {
      return {
        pvc: `${namespace}/${name}`,
        found: false,
        vms,
        message: `PVC ${namespace}/${name} was not found: the VM names it, but it does not exist (yet), so there is nothing to grow.`,
      };
    }
    const current = pvc.spec?.resources?.requests?.['storage'];
    const size = formatBytes(
      (current === undefined ? 0n : parseQuantityCeil(String(current))) + increment,
    );
    return {
      ...checkResize(pvc, size, caches, admission, policies.get(namespace)),
      found: true,
      vms,
    };
  });
}
