import type { KubeConfig } from '@kubernetes/client-node';
import { parseQuantity } from '../kube/index.js';
import type { AdmissionOptions } from '../admission/index.js';
import { loadClusterCaches, readNamespacePolicies } from '../check/index.js';
import { DemoError } from './demo-error.js';
import { surveyedNamespaces, surveyRows, type SurveyEntry } from './survey-rows.js';

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
 * hold them; a PVC a VM names that does not exist is listed as not found. Changes nothing.
 */
export async function surveyExpansions(options: SurveyOptions): Promise<SurveyEntry[]> {
  // Whole bytes: a fractional growth ("100m") would be rounded and then reported as asked.
  const increment = parseQuantity(options.growBy);
  if (increment <= 0n)
    throw new DemoError(
      'DEMO_USAGE',
      `--grow-by must be a positive quantity such as 1Gi, got "${options.growBy}"`,
    );
  const failed = (error: unknown): never => {
    throw new DemoError(
      'DEMO_API_FAILED',
      `surveying the cluster failed: ${(error as Error).message}`,
      { cause: error },
    );
  };
  const caches = await loadClusterCaches(options.kubeConfig, options.admission).catch(failed);
  // What `voe check` reads too: the LimitRanges and ResourceQuotas of those namespaces, the API server's version.
  const policies = await readNamespacePolicies(
    options.kubeConfig,
    surveyedNamespaces(caches),
  ).catch(failed);
  return surveyRows(caches, options.admission, increment, policies);
}
