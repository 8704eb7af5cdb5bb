import type { KubeConfig } from '@kubernetes/client-node';
import { formatBytes, parseQuantity, parseQuantityCeil } from '../kube/index.js';
import {
  checkResize, loadClusterCaches, pvcKeysOfVm, readNamespacePolicies, type AdmissionOptions, type CheckResult,
} from '../webhook/index.js';
import { DemoError } from './demo-error.js';

export interface SurveyRow extends CheckResult {
  /** The VMs using the PVC, e.g. "vm1 (Running)". */
  vms: string[];
}

export interface SurveyOptions {
  kubeConfig: KubeConfig;
  admission: AdmissionOptions;
  /** How much to grow each PVC in the question asked; e.g. "1Gi". */
  growBy: string;
}

/**
 * `voe demo` on a configured cluster, read-only: for every PVC a KubeVirt VM uses, what the
 * user's update would get if its storage request grew by `growBy` now: the `voe check` decision
 * (the API server's own checks with the namespace's LimitRanges and ResourceQuotas, and the
 * webhook's) over caches filled by one list call per resource, as the webhook's informers would
 * hold them. Changes nothing.
 */
export async function surveyExpansions(options: SurveyOptions): Promise<SurveyRow[]> {
  // Whole bytes: a fractional growth ("100m") would be rounded and then reported as asked.
  const increment = parseQuantity(options.growBy);
  if (increment <= 0n) throw new DemoError('DEMO_USAGE', `--grow-by must be a positive quantity such as 1Gi, got "${options.growBy}"`);
  const failed = (error: unknown): never => {
    throw new DemoError('DEMO_API_FAILED', `surveying the cluster failed: ${(error as Error).message}`, { cause: error });
  };
  const caches = await loadClusterCaches(options.kubeConfig, options.admission).catch(failed);
  const users = new Map<string, string[]>();
  for (const vm of caches.vms.list()) {
    const label = `${vm.metadata?.name ?? '?'} (${vm.status?.printableStatus ?? 'no status'})`;
    for (const key of pvcKeysOfVm(vm)) users.set(key, [...(users.get(key) ?? []), label]);
  }
  const claims = [...users].sort(([a], [b]) => a.localeCompare(b)).flatMap(([key, vmLabels]) => {
    const [namespace = '', name = ''] = key.split('/');
    const pvc = caches.pvcs.get(namespace, name);
    return pvc === undefined ? [] : [{ namespace, pvc, vmLabels }]; // a VM may name a claim that does not exist (yet)
  });
  // What `voe check` reads too: the LimitRanges and ResourceQuotas of those namespaces, the API server's version.
  const policies = await readNamespacePolicies(options.kubeConfig, claims.map((claim) => claim.namespace)).catch(failed);
  return claims.map(({ namespace, pvc, vmLabels }) => {
    const current = pvc.spec?.resources?.requests?.['storage'];
    const size = formatBytes((current === undefined ? 0n : parseQuantityCeil(String(current))) + increment);
    return { ...checkResize(pvc, size, caches, options.admission, policies.get(namespace)), vms: vmLabels };
  });
}
