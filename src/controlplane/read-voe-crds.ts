import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { VOLUME_EXPANSION_GROUP } from '../vmwatcher/volume-expansion.js';
import { ControlPlaneError } from './control-plane-error.js';
import { crdManifestDir } from './install-crds.js';

/**
 * voe's own CRDs (group storage.voe.dev) among the manifests of `dir`: what `voe crds apply`
 * applies. The other CRDs there (KubeVirt's, Harvester's ...) are left to their owners. A missing
 * directory, a YAML error or no CRD of voe's is CONTROLPLANE_CRD_MANIFEST_INVALID.
 */
export async function readVoeCrds(dir = crdManifestDir()): Promise<V1CustomResourceDefinition[]> {
  const invalid = (message: string) =>
    new ControlPlaneError('CONTROLPLANE_CRD_MANIFEST_INVALID', message);
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  } catch (error) {
    throw invalid(`cannot read the CRD manifests in ${dir}: ${(error as Error).message}`);
  }
  const crds: V1CustomResourceDefinition[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
      if (doc.errors.length > 0)
        throw invalid(`${join(dir, file)} is not valid YAML: ${doc.errors[0]!.message}`);
      const value = doc.toJS() as V1CustomResourceDefinition | null;
      if (value?.kind !== 'CustomResourceDefinition') continue;
      if (value.spec?.group !== VOLUME_EXPANSION_GROUP) continue;
      if (!value.metadata?.name || !Array.isArray(value.spec.versions))
        throw invalid(
          `${join(dir, file)}: a CRD of ${VOLUME_EXPANSION_GROUP} without a name or versions`,
        );
      crds.push(value);
    }
  }
  if (crds.length === 0)
    throw invalid(`no CustomResourceDefinition of ${VOLUME_EXPANSION_GROUP} in ${dir}`);
  return crds;
}
