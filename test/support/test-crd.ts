import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { isNotFound, isResourceServed } from '../../src/kube/index.js';
import { eventually } from './eventually.js';

/**
 * A namespaced test-only CRD (group/v1, any fields kept), for a resource a test may delete. Written
 * with the wire names, as installCrds sends it (the typed model has no `x-kubernetes-*` property).
 */
export function testCrd(group: string, plural: string, kind: string): V1CustomResourceDefinition {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  };
  return crd as V1CustomResourceDefinition;
}

/** The custom-object address of a test CRD's resource. */
export function resourceOf(crd: V1CustomResourceDefinition): {
  group: string;
  version: string;
  plural: string;
} {
  return { group: crd.spec.group, version: 'v1', plural: crd.spec.names.plural };
}

/**
 * Deletes the CRD on the API server and waits until the cluster really no longer serves it:
 * discovery does not list the resource, and a list of it answers 404.
 */
export async function deleteCrd(
  kubeConfig: KubeConfig,
  crd: V1CustomResourceDefinition,
): Promise<void> {
  await kubeConfig
    .makeApiClient(ApiextensionsV1Api)
    .deleteCustomResourceDefinition({ name: crd.metadata!.name! });
  const resource = resourceOf(crd);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  await eventually(
    async () => {
      if (await isResourceServed(kubeConfig, resource)) return false;
      try {
        await custom.listNamespacedCustomObject({ ...resource, namespace: 'default' });
        return false;
      } catch (error) {
        return isNotFound(error);
      }
    },
    30_000,
    `${crd.metadata!.name!} no longer served`,
  );
}
