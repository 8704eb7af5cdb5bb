import {
  ApiextensionsV1Api,
  KubernetesObjectApi,
  loadYaml,
  PatchStrategy,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { isNotFound } from '../kube/index.js';
import { waitEstablished } from './install-crds.js';

/** The field manager of `voe crds apply`. */
export const CRD_FIELD_MANAGER = 'voe';

/** One CRD applied: whether the API server stored a change. */
export interface AppliedCrd {
  name: string;
  changed: boolean;
}

/**
 * Server-side applies each CRD as field manager `voe` (forcing ownership of the fields Helm's
 * `crds/` install or an earlier apply set), then waits until all are Established
 * (CONTROLPLANE_CRD_TIMEOUT otherwise). Idempotent: a CRD already as written keeps its
 * resourceVersion and is reported unchanged. Needs get, create and patch on the CRDs named.
 */
export async function applyCrds(
  kc: KubeConfig,
  crds: V1CustomResourceDefinition[],
  timeoutMs: number,
): Promise<AppliedCrd[]> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const applied: AppliedCrd[] = [];
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    const before = await api.readCustomResourceDefinition({ name }).then(
      (existing) => existing.metadata?.resourceVersion,
      (error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      },
    );
    // The patch is serialised by the typed model's property names, so the manifest (wire names:
    // `enum`, `x-kubernetes-*`) is first read into that model, or those fields would be dropped.
    const body = loadYaml<V1CustomResourceDefinition>(
      JSON.stringify({
        ...crd,
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
      }),
    );
    const after = await objects.patch(
      body,
      undefined,
      undefined,
      CRD_FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
    applied.push({ name, changed: after.metadata?.resourceVersion !== before });
  }
  await waitEstablished(
    api,
    applied.map((c) => c.name),
    timeoutMs,
  );
  return applied;
}
