import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { GUEST_CHART, HOST_CHART, repoRoot } from './render.js';

interface SchemaNode {
  type?: string | string[];
  enum?: unknown[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: boolean | SchemaNode;
  $ref?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  oneOf?: SchemaNode[];
}

interface Schema extends SchemaNode {
  definitions?: Record<string, SchemaNode>;
}

/** One configurable key of a chart: its dotted path, what values it takes, its default and what it does. */
export interface ValueKey {
  path: string;
  type: string;
  default: unknown;
  description: string;
}

function resolve(schema: Schema, node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const target = schema.definitions?.[node.$ref.replace('#/definitions/', '')];
  if (!target) throw new Error(`unresolved ${node.$ref}`);
  // The node's own description wins over the definition's.
  return {
    ...resolve(schema, target),
    ...(node.description ? { description: node.description } : {}),
  };
}

function describeType(node: SchemaNode): string {
  if (node.enum) return node.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (node.oneOf) return node.oneOf.map(describeType).join(' or ');
  const type = Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
  const range =
    node.minimum !== undefined || node.maximum !== undefined
      ? ` ${node.minimum ?? ''}..${node.maximum ?? ''}`
      : '';
  if (type === 'array') return `list of ${node.items ? describeType(node.items) : 'any'}`;
  if (
    type === 'object' &&
    node.additionalProperties &&
    typeof node.additionalProperties === 'object'
  )
    return `map of ${describeType(node.additionalProperties)}`;
  return `${type}${range}`;
}

function valueAt(values: unknown, path: string[]): unknown {
  let current = values;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Every leaf key of the chart's values.schema.json (objects with properties are walked into), in schema order. */
export function valueKeys(chart: string): ValueKey[] {
  const schema = JSON.parse(
    readFileSync(join(repoRoot(), chart, 'values.schema.json'), 'utf8'),
  ) as Schema;
  const values = parse(readFileSync(join(repoRoot(), chart, 'values.yaml'), 'utf8')) as unknown;
  const keys: ValueKey[] = [];
  const walk = (node: SchemaNode, path: string[]): void => {
    const resolved = resolve(schema, node);
    if (resolved.properties && path.length > 0 && resolved.additionalProperties === false) {
      const leaves = Object.entries(resolved.properties);
      // An object whose keys are all documented below it: its own row would repeat them.
      // Container resources and a cert-manager issuerRef are one value each.
      const whole =
        node.$ref === '#/definitions/resources' || path[path.length - 1] === 'issuerRef';
      if (leaves.length > 0 && !whole) {
        for (const [key, child] of leaves) walk(child, [...path, key]);
        return;
      }
    }
    if (path.length === 0) {
      for (const [key, child] of Object.entries(resolved.properties ?? {})) walk(child, [key]);
      return;
    }
    keys.push({
      path: path.join('.'),
      type: describeType(resolved),
      default: valueAt(values, path),
      description: resolved.description ?? '',
    });
  };
  walk(schema, []);
  return keys;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The markdown table of a chart's keys, as docs/configuration.md holds it. */
export function referenceTable(chart: string): string {
  const rows = valueKeys(chart).map((key) => {
    const fallback = key.default === undefined ? '' : `\`${cell(JSON.stringify(key.default))}\``;
    return `| \`${key.path}\` | ${key.type.replace(/(?<!\\)\|/g, '\\|')} | ${fallback} | ${cell(key.description)} |`;
  });
  return ['| key | type | default | description |', '| --- | --- | --- | --- |', ...rows].join(
    '\n',
  );
}

/** The charts the reference covers, with the heading each table sits under. */
export const REFERENCE_CHARTS: Array<[string, string]> = [
  [HOST_CHART, 'Host chart (`charts/volume-online-expansion`)'],
  [GUEST_CHART, 'Guest-cluster chart (`charts/voe-csi`)'],
];

// `node dist/test/support/charts/configuration-reference.js` prints the tables.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  for (const [chart, heading] of REFERENCE_CHARTS)
    process.stdout.write(`## ${heading}\n\n${referenceTable(chart)}\n\n`);
}
