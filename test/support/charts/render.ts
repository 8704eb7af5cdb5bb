import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { KUBERNETES_VERSION } from '../../../src/controlplane/index.js';
import { ensureHelm, runHelm, type HelmResult } from './helm.js';

/** The repository's root (dist/test/support/charts/<this>.js -> the clone). */
export function repoRoot(): string {
  return fileURLToPath(new URL('../../../../', import.meta.url));
}

/** The host (Harvester) chart. */
export const HOST_CHART = 'charts/volume-online-expansion';
/** The guest-cluster chart of the CSI driver. */
export const GUEST_CHART = 'charts/voe-csi';

export interface RenderOptions {
  release?: string;
  namespace?: string;
  /** Values given with -f (written to a file). */
  values?: Record<string, unknown>;
  /** Values files given with -f, relative to the repository's root. */
  valuesFiles?: string[];
  /** helm template --include-crds. */
  includeCrds?: boolean;
  /** helm template --api-versions: the optional APIs the cluster serves (default OPTIONAL_APIS). */
  apiVersions?: string[];
}

/**
 * The optional APIs the host chart's integrations need, all served by the charts' test control
 * plane (test/support/charts/crds): what .Capabilities.APIVersions has on such a cluster.
 */
export const OPTIONAL_APIS = [
  'cert-manager.io/v1/Certificate',
  'cert-manager.io/v1/Issuer',
  'monitoring.coreos.com/v1/ServiceMonitor',
  'monitoring.coreos.com/v1/PrometheusRule',
];

/** A rendered object: what the API server receives, plus the template it came from. */
export type Rendered = KubernetesObject & Record<string, unknown>;

/** helm, built when needed, with a scratch HELM_*_HOME removed after the calling file (`after`). */
export interface Helm {
  binary: string;
  run(args: string[]): Promise<HelmResult>;
  /** Writes `values` to a file in helm's scratch directory; resolves with its path (for -f). */
  writeValues(values: Record<string, unknown>): Promise<string>;
  /** helm template CHART; fails with helm's stderr when it does. */
  template(chart: string, options?: RenderOptions): Promise<Rendered[]>;
  cleanup(): Promise<void>;
}

export async function useHelm(): Promise<Helm> {
  const binary = await ensureHelm({ onProgress: (line) => process.stderr.write(`${line}\n`) });
  const home = await mkdtemp(join(tmpdir(), 'voe-helm-'));
  let files = 0;
  const run = (args: string[]) => runHelm(binary, args, home);
  const writeValues = async (values: Record<string, unknown>): Promise<string> => {
    const file = join(home, `values-${++files}.json`);
    // JSON (a YAML subset) quotes every string: helm reads YAML 1.1, where a plain off is false.
    await writeFile(file, JSON.stringify(values));
    return file;
  };
  return {
    binary,
    run,
    writeValues,
    async template(chart, options = {}) {
      const args = [
        'template',
        options.release ?? 'voe',
        join(repoRoot(), chart),
        '--namespace',
        options.namespace ?? 'voe-system',
        '--kube-version',
        KUBERNETES_VERSION,
      ];
      if (options.includeCrds) args.push('--include-crds');
      for (const api of options.apiVersions ?? OPTIONAL_APIS) args.push('--api-versions', api);
      for (const file of options.valuesFiles ?? []) args.push('-f', join(repoRoot(), file));
      if (options.values) args.push('-f', await writeValues(options.values));
      const result = await run(args);
      if (result.code !== 0)
        throw new Error(`helm ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return parseAllDocuments(result.stdout)
        .map((doc) => doc.toJS() as Rendered | null)
        .filter((object): object is Rendered => object !== null);
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

/** The objects of `kind` (and `name`, when given). */
export function objectsOf(objects: Rendered[], kind: string, name?: string): Rendered[] {
  return objects.filter(
    (object) => object.kind === kind && (name === undefined || object.metadata?.name === name),
  );
}

/** The one object of `kind` named `name`; throws when there is not exactly one. */
export function oneOf(objects: Rendered[], kind: string, name: string): Rendered {
  const found = objectsOf(objects, kind, name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${found.length}`);
  return found[0]!;
}

/** The Helm hook phases of an object ('' when it is not a hook). */
export function hookOf(object: Rendered): string {
  return object.metadata?.annotations?.['helm.sh/hook'] ?? '';
}
