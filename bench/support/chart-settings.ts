/** What a chart's values.yaml sets for one of its Deployments or DaemonSets: memory and NODE_OPTIONS. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

interface ComponentValues {
  nodeOptions?: string;
  resources?: { requests?: { memory?: string }; limits?: { memory?: string } };
}

export interface ChartSettings {
  /** The memory request and limit ("none" when unset). */
  request: string;
  limit: string;
  /** The NODE_OPTIONS of its voe container ('' when unset). */
  nodeOptions: string;
}

/** The settings of `key` (e.g. "webhook", "node") in charts/`chart`/values.yaml of this checkout. */
export async function chartSettings(chart: string, key: string): Promise<ChartSettings> {
  const file = fileURLToPath(new URL(`../../../charts/${chart}/values.yaml`, import.meta.url));
  const values = parse(await readFile(file, 'utf8')) as Record<string, ComponentValues>;
  const { resources, nodeOptions } = values[key] ?? {};
  return {
    request: resources?.requests?.memory ?? 'none',
    limit: resources?.limits?.memory ?? 'none',
    nodeOptions: nodeOptions ?? '',
  };
}
