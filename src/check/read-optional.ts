import { ApiException, type KubeConfig } from '@kubernetes/client-node';
import { apiErrorOf, isResourceServed, retryWhen, type ResourceRef } from '../kube/index.js';
import { CheckError } from './check-error.js';

/** An answer asking to come back later: 429 (a resource's storage still initializing, API priority and fairness). */
function tryLater(error: unknown): boolean {
  return apiErrorOf(error)?.code === 429;
}

/** How `readOptional` retries a 429, as client-go does on its own: about 6 s in all. */
export const TRY_LATER_RETRIES = { retries: 5, minTimeoutMs: 200, maxTimeoutMs: 2_000 };

/**
 * A read for `voe check` and the demo survey that may find nothing (object or CRD missing ->
 * undefined). A 429 is read again a few times (TRY_LATER_RETRIES); any other failure, or a 429
 * that stays, throws CHECK_API_FAILED with the HTTP status.
 */
export async function readOptional<T>(
  what: string,
  read: () => Promise<T>,
  retries: Parameters<typeof retryWhen>[2] = TRY_LATER_RETRIES,
): Promise<T | undefined> {
  try {
    return await retryWhen(tryLater, () => read(), retries);
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    const status = error instanceof ApiException ? ` (HTTP ${error.code})` : '';
    // The API server's own words (e.g. 'User "x" cannot list resource ...'), not the client's "HTTP-Code: 403".
    const why = apiErrorOf(error)?.message || (error as Error).message.split('\n')[0];
    const advice = tryLater(error)
      ? 'The API server asks to try again later; run it again in a moment.'
      : 'Check the kubeconfig and that your user may get/list it.';
    throw new CheckError('CHECK_API_FAILED', `reading ${what} failed${status}: ${why}. ${advice}`, {
      cause: error,
    });
  }
}

/**
 * A list of a resource the cluster may not serve (a CRD not installed: reads as empty). A 404 counts
 * as "not served" only when discovery confirms it: a spurious 404 (kubernetes#115241, a proxy)
 * would otherwise read as "no VMs" and make a running VM's resize look like an offline one.
 */
export async function readOptionalList<T>(
  what: string,
  kubeConfig: KubeConfig,
  resource: Pick<ResourceRef, 'group' | 'version' | 'plural'>,
  list: () => Promise<T>,
): Promise<T | undefined> {
  const found = await readOptional(what, list);
  if (found !== undefined) return found;
  let served: boolean;
  try {
    served = await isResourceServed(kubeConfig, resource);
  } catch (error) {
    throw new CheckError(
      'CHECK_API_FAILED',
      `reading ${what} answered 404, and discovery could not be read to tell whether the cluster serves ${resource.plural}.${resource.group}: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
  if (served) {
    throw new CheckError(
      'CHECK_API_FAILED',
      `reading ${what} answered 404 although the cluster serves ${resource.plural}.${resource.group} (discovery lists it); ` +
        'an API server restarting or a proxy in between can answer so. Try again.',
    );
  }
  return undefined;
}
