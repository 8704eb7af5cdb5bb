/**
 * The install documentation against what it documents: docs/configuration.md holds every key of
 * both charts' values.schema.json with its type, default (values.yaml) and description, and
 * docs/troubleshooting.md names every refusal reason the webhook can answer with.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  REFERENCE_CHARTS,
  referenceTable,
  valueKeys,
} from '../../support/charts/configuration-reference.js';
import { repoRoot } from '../../support/charts/render.js';
import { Decision } from '../../../src/admission/decision.js';

const read = (path: string): string => readFileSync(join(repoRoot(), path), 'utf8');

/** The rows of the first table under `heading` (a `## ` line), each as its trimmed cells. */
function tableUnder(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.isAtLeast(start, 0, `no section "## ${heading}"`);
  const rest = markdown.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  const lines = (end < 0 ? rest : rest.slice(0, end))
    .split('\n')
    .filter((line) => line.startsWith('|'));
  return lines
    .filter((line) => !/^\|\s*-{3,}/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

/** Decisions the webhook and voe check answer with that let the request through. */
const ALLOWING = new Set([
  'allowed',
  'allowed-offline',
  'online',
  'not-resize',
  'not-template-change',
  'not-expand-setting',
  'recovery',
  'setting-valid',
]);

/** Every decision label the webhook and voe check answer with (the reasons answers and metrics carry). */
function decisionsInSource(): string[] {
  return [...new Set<string>(Object.values(Decision))].sort();
}

describe('the install documentation', () => {
  for (const [chart, heading] of REFERENCE_CHARTS) {
    it(`docs/configuration.md lists every key of ${chart}'s values.schema.json, with its type, default and description`, () => {
      const documented = tableUnder(read('docs/configuration.md'), heading);
      const expected = tableUnder(`\n## ${heading}\n\n${referenceTable(chart)}\n`, heading);
      assert.deepStrictEqual(documented, expected);
      for (const key of valueKeys(chart))
        assert.isNotEmpty(key.description, `${key.path} has no description in the schema`);
    });
  }

  it('docs/troubleshooting.md names every refusal reason the webhook and voe check answer with', () => {
    const refusals = decisionsInSource().filter((decision) => !ALLOWING.has(decision));
    assert.includeMembers(refusals, [
      'gate-missing',
      'hotplug-filesystem',
      'provisioner-not-validated',
      'template-shrink',
      'setting-longhorn-disabled',
    ]);
    const text = read('docs/troubleshooting.md');
    const missing = refusals.filter((decision) => !text.includes(`\`${decision}\``));
    assert.deepStrictEqual(missing, []);
  });

  it('docs/install.md, docs/metrics.md and docs/troubleshooting.md are linked from the README', () => {
    const readme = read('README.md');
    for (const doc of [
      'docs/install.md',
      'docs/configuration.md',
      'docs/metrics.md',
      'docs/troubleshooting.md',
    ])
      assert.include(readme, `(${doc})`);
  });
});
