import { ApiException } from '@kubernetes/client-node';
import { apiErrorOf } from '../kube/index.js';
import { CheckError } from './check-error.js';

/**
 * A read for `voe check` and the demo survey that may find nothing (object or CRD missing ->
 * undefined); any other failure throws CHECK_API_FAILED with the HTTP status.
 */
export async function readOptional<T>(what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return undefined;
    const status = error instanceof ApiException ? ` (HTTP ${error.code})` : '';
    // The API server's own words (e.g. 'User "x" cannot list resource ...'), not the client's "HTTP-Code: 403".
    const why = apiErrorOf(error)?.message || (error as Error).message.split('\n')[0];
    throw new CheckError('CHECK_API_FAILED',
      `reading ${what} failed${status}: ${why}. Check the kubeconfig and that your user may get/list it.`,
      { cause: error });
  }
}

/** The items of a list answer (none when the read found nothing). */
export function listItems<T>(list: unknown): T[] {
  return ((list as { items?: T[] } | undefined)?.items) ?? [];
}

/** An optional read's object as a list (empty when the read found nothing). */
export function listOf<T>(object: T | undefined): T[] {
  return object ? [object] : [];
}
