import type { StagedCluster } from '../../../src/demo/staged-cluster.js';

/** What the API server answered a refused resize with (its Status), including the webhook's causes. */
export interface Refusal {
  code: number;
  message: string;
  causes?: Array<{ reason?: string; message?: string; field?: string }>;
}

/**
 * Raises PVC `namespace/name` to `storage` through the API server as a user would; resolves with
 * undefined when admitted, else with the refusal's code, message and causes.
 */
export async function resizeThroughApi(
  cluster: StagedCluster,
  name: string,
  storage: string,
  namespace = 'default',
): Promise<Refusal | undefined> {
  try {
    await cluster.resizeClaim(namespace, name, storage);
    return undefined;
  } catch (error) {
    const e = error as { code?: number; body?: unknown };
    type Body = { message?: string; details?: { causes?: Refusal['causes'] } };
    const body =
      typeof e.body === 'string' ? (JSON.parse(e.body) as Body) : (e.body as Body | undefined);
    return {
      code: e.code ?? 0,
      message: body?.message ?? String(error),
      ...(body?.details?.causes ? { causes: body.details.causes } : {}),
    };
  }
}
