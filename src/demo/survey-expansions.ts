import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { formatBytes, parseQuantityCeil } from '../kube/index.js';
import {
  checkResize, loadCheckCaches, pvcKeysOfVm, type AdmissionOptions, type CheckResult, type VirtualMachine,
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
 * webhook would answer if its storage request grew by `growBy` now (the `voe check` decision,
 * read with get/list calls). Changes nothing.
 */
export async function surveyExpansions(options: SurveyOptions): Promise<SurveyRow[]> {
  const increment = parseQuantityCeil(options.growBy);
  if (increment <= 0n) throw new DemoError('DEMO_USAGE', `--grow-by must be a positive quantity such as 1Gi, got "${options.growBy}"`);
  const custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
  let vms: VirtualMachine[];
  try {
    const list = await custom.listClusterCustomObject({ group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' }) as { items?: VirtualMachine[] };
    vms = list.items ?? [];
  } catch (error) {
    throw new DemoError('DEMO_API_FAILED', `listing KubeVirt VirtualMachines failed: ${(error as Error).message.split('\n')[0]}; check the kubeconfig and that this is a Harvester (KubeVirt) cluster`, { cause: error });
  }
  const users = new Map<string, string[]>();
  for (const vm of vms) {
    const label = `${vm.metadata?.name ?? '?'} (${vm.status?.printableStatus ?? 'no status'})`;
    for (const key of pvcKeysOfVm(vm)) users.set(key, [...(users.get(key) ?? []), label]);
  }
  const rows: SurveyRow[] = [];
  for (const [key, vmLabels] of [...users].sort(([a], [b]) => a.localeCompare(b))) {
    const [namespace = '', name = ''] = key.split('/');
    const { pvc, caches } = await loadCheckCaches(options.kubeConfig, { namespace, name }, options.admission).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'CHECK_PVC_NOT_FOUND') return { pvc: undefined, caches: undefined };
      throw error;
    });
    if (pvc === undefined || caches === undefined) continue; // a VM may name a claim that does not exist (yet)
    const current = pvc.spec?.resources?.requests?.['storage'];
    const size = formatBytes((current === undefined ? 0n : parseQuantityCeil(String(current))) + increment);
    rows.push({ ...checkResize(pvc, size, caches, options.admission), vms: vmLabels });
  }
  return rows;
}
