// npm run package -- --repo-url URL --registry REGISTRY [--out DIR] [--helm HELM]
//
// Packages the two charts as versioned archives (helm package), writes the Helm repository index
// for URL (helm repo index --url), and renders the Harvester Addon (manifests/addon.yaml) for that
// repository: spec.repo = URL, and image.repository = REGISTRY/voe with the chart's appVersion as
// image.tag in spec.valuesContent. Serve DIR at URL (any static HTTP server; docs/install.md).
// Output in DIR (default dist/package): <chart>-<version>.tgz, index.yaml, addon.yaml.
// helm runs as a process with an argument array (no shell), from $PATH unless --helm names it.
/* global process, URL */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));
const CHARTS = ['charts/volume-online-expansion', 'charts/voe-csi'];

function usage(message) {
  process.stderr.write(
    `npm run package: ${message}\nusage: npm run package -- --repo-url URL --registry REGISTRY [--out DIR] [--helm HELM]\n`,
  );
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    'repo-url': { type: 'string' },
    registry: { type: 'string' },
    out: { type: 'string', default: join(root, 'dist', 'package') },
    helm: { type: 'string', default: 'helm' },
  },
});
const repoUrl = values['repo-url'];
const registry = values.registry?.replace(/\/+$/, '');
if (!repoUrl || !/^https?:\/\/[^\s]+$/.test(repoUrl))
  usage('--repo-url must be the http(s) URL the repository is served at');
if (!registry || /[\s:@]$/.test(registry) || /\s/.test(registry))
  usage('--registry must be an image registry and path, e.g. registry.example.com/voe');
const out = resolve(values.out);
await mkdir(out, { recursive: true });

const helm = (args) => run(values.helm, args, { cwd: root, maxBuffer: 16 << 20 });
for (const chart of CHARTS) await helm(['package', join(root, chart), '--destination', out]);
await helm(['repo', 'index', out, '--url', repoUrl]);

// The Addon for this repository and registry: the comments and the rest of valuesContent kept.
const chart = parse(await readFile(join(root, CHARTS[0], 'Chart.yaml'), 'utf8'));
const docs = parseAllDocuments(await readFile(join(root, 'manifests', 'addon.yaml'), 'utf8'));
const addon = docs.find((doc) => doc.get('kind') === 'Addon');
addon.setIn(['spec', 'repo'], repoUrl);
addon.setIn(['spec', 'version'], chart.version);
const valuesContent = parseAllDocuments(String(addon.getIn(['spec', 'valuesContent'])))[0];
valuesContent.setIn(['image', 'repository'], `${registry}/voe`);
valuesContent.setIn(['image', 'tag'], String(chart.appVersion));
addon.setIn(['spec', 'valuesContent'], valuesContent.toString());
// Each document after the first keeps its own `---` marker.
await writeFile(join(out, 'addon.yaml'), docs.map((doc) => doc.toString()).join(''));

const versions = await Promise.all(
  CHARTS.map(async (dir) => parse(await readFile(join(root, dir, 'Chart.yaml'), 'utf8'))),
);
process.stdout.write(
  `${versions.map((c) => `${c.name}-${c.version}.tgz`).join(', ')}, index.yaml (for ${repoUrl}) and addon.yaml (images from ${registry}) in ${out}\n`,
);
