import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { isAlreadyExists } from '../kube/index.js';
import { ControlPlaneError } from './control-plane-error.js';
import { falseOnError, waitUntil } from '../wait/index.js';

/** manifests/crds in the package: ours and the KubeVirt, Harvester, Longhorn and CDI CRDs we read. */
export function crdManifestDir(): string {
  return fileURLToPath(new URL('../../../manifests/crds/', import.meta.url));
}

export async function readCrds(dir = crdManifestDir()): Promise<V1CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      const value = doc.toJS() as V1CustomResourceDefinition | null;
      if (value?.kind === 'CustomResourceDefinition') crds.push(value);
    }
  }
  return crds;
}

/** The CRD resource, addressed through the untyped client. */
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

/**
 * Creates (or replaces) each CRD and waits until all are Established. The manifests are sent as
 * written, through the untyped client: the typed ApiextensionsV1Api serialises a body by its
 * model's property names, so the wire names it has no property for (`x-kubernetes-preserve-unknown-fields`,
 * `enum` ...) would be dropped, and the API server would prune fields the CRD means to keep.
 */
export async function installCrds(
  kc: KubeConfig,
  crds?: V1CustomResourceDefinition[],
  timeoutMs = 30_000,
): Promise<string[]> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const raw = kc.makeApiClient(CustomObjectsApi);
  const list = crds ?? (await readCrds());
  for (const crd of list) await applyCrd(api, raw, crd);
  const names = list.map((c) => c.metadata!.name!);
  await waitEstablished(api, names, timeoutMs);
  // Established is not enough: until its watch cache is initialised a new resource answers
  // 429 "storage is (re)initializing". Wait until every served version lists.
  await waitServed(raw, servedResources(list), timeoutMs);
  return names;
}

/** Creates the CRD, or replaces the one of its name. */
async function applyCrd(
  api: ApiextensionsV1Api,
  raw: CustomObjectsApi,
  crd: V1CustomResourceDefinition,
): Promise<void> {
  const name = crd.metadata!.name!;
  try {
    await raw.createClusterCustomObject({ ...CRDS, body: crd });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await api.readCustomResourceDefinition({ name });
    await raw.replaceClusterCustomObject({
      ...CRDS,
      name,
      body: {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion },
      },
    });
  }
}

/** Waits until each CRD named has its Established condition True (CONTROLPLANE_CRD_TIMEOUT otherwise). */
export async function waitEstablished(
  api: ApiextensionsV1Api,
  names: string[],
  timeoutMs: number,
): Promise<void> {
  const pending = new Set(names);
  const result = await waitUntil(
    falseOnError(async () => {
      for (const name of [...pending]) {
        const crd = await api.readCustomResourceDefinition({ name });
        if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
          pending.delete(name);
      }
      return pending.size === 0;
    }),
    { timeoutMs, intervalMs: 100 },
  );
  if (result !== 'ok')
    throw new ControlPlaneError(
      'CONTROLPLANE_CRD_TIMEOUT',
      `CRDs not Established within ${timeoutMs} ms: ${[...pending].join(', ')}`,
    );
}

/** Each served version of the CRDs, as `<group>/<version>/<plural>`. Pure. */
function servedResources(crds: V1CustomResourceDefinition[]): string[] {
  return crds.flatMap((crd) =>
    crd.spec.versions
      .filter((v) => v.served)
      .map((v) => `${crd.spec.group}/${v.name}/${crd.spec.names.plural}`),
  );
}

/** Waits until a list of each resource (`<group>/<version>/<plural>`) answers (CONTROLPLANE_CRD_TIMEOUT otherwise). */
async function waitServed(
  custom: CustomObjectsApi,
  resources: string[],
  timeoutMs: number,
): Promise<void> {
  const unserved = new Set(resources);
  const served = await waitUntil(
    falseOnError(async () => {
      for (const key of [...unserved]) {
        const [group, version, plural] = key.split('/') as [string, string, string];
        await custom.listClusterCustomObject({ group, version, plural, limit: 1 });
        unserved.delete(key);
      }
      return unserved.size === 0;
    }),
    { timeoutMs, intervalMs: 100 },
  );
  if (served !== 'ok')
    throw new ControlPlaneError(
      'CONTROLPLANE_CRD_TIMEOUT',
      `CRDs not served within ${timeoutMs} ms: ${[...unserved].join(', ')}`,
    );
}
