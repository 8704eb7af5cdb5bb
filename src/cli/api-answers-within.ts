import type { KubeClientConfig } from '../kube/index.js';
import { withinDeadline } from './within-deadline.js';

/**
 * `reads` (a command's reads of the cluster), or `toError` saying that the API server did not
 * answer them (`what`, e.g. "every read of the survey") within `seconds` (the command's --timeout).
 */
export function apiAnswersWithin<T>(
  reads: Promise<T>,
  kubeConfig: KubeClientConfig,
  seconds: number,
  what: string,
  toError: (message: string) => Error,
): Promise<T> {
  return withinDeadline(reads, seconds * 1000, () =>
    toError(
      `the API server at ${kubeConfig.getCurrentCluster()?.server ?? '(no server in the kubeconfig)'} ` +
        `did not answer ${what} within ${seconds} s; check that it is reachable and not overloaded, or raise --timeout.`,
    ),
  );
}
