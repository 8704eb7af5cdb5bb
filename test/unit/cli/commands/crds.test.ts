import { describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from '../../../support/cleanup.js';
import { runVoe } from '../../../support/run-voe.js';
import { listenTcp } from '../../../support/tcp-listener.js';
import { writeUnreachableKubeconfig } from '../../../support/unreachable-kubeconfig.js';

const voe = (args: string[]) =>
  runVoe(args, { env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' }, timeout: 30_000 });

/** A scratch directory, removed after the test. */
async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-crds-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('voe crds apply (usage)', () => {
  it('--help describes the command and exits 0', async () => {
    const { code, stdout } = await voe(['crds', 'apply', '--help']);
    assert.strictEqual(code, 0);
    const text = stdout.replace(/\s+/g, ' ');
    assert.match(text, /Usage: voe crds apply \[options\]/);
    assert.match(text, /Server-side apply voe's own CRDs \(group storage\.voe\.dev\)/);
    assert.match(text, /as field manager "voe", then wait until they are Established/);
    for (const flag of ['--dir <dir>', '--timeout <seconds>', '--kubeconfig <path>', '--json'])
      assert.include(text, flag);
  });

  const manifests: Array<[string, Record<string, string> | undefined, RegExp]> = [
    ['a missing directory', undefined, /cannot read the CRD manifests in .*ENOENT/],
    [
      'invalid YAML',
      { 'volumeexpansion.yaml': 'kind: CustomResourceDefinition\nspec: [unclosed\n' },
      /volumeexpansion\.yaml is not valid YAML/,
    ],
    [
      'no CRD of voe',
      {
        'kubevirt.yaml': [
          'apiVersion: apiextensions.k8s.io/v1',
          'kind: CustomResourceDefinition',
          'metadata: { name: virtualmachines.kubevirt.io }',
          'spec: { group: kubevirt.io, versions: [] }',
          '',
        ].join('\n'),
      },
      /no CustomResourceDefinition of storage\.voe\.dev in /,
    ],
    [
      'a CRD of voe without versions',
      {
        'volumeexpansion.yaml': [
          'apiVersion: apiextensions.k8s.io/v1',
          'kind: CustomResourceDefinition',
          'metadata: { name: volumeexpansions.storage.voe.dev }',
          'spec: { group: storage.voe.dev }',
          '',
        ].join('\n'),
      },
      /a CRD of storage\.voe\.dev without a name or versions/,
    ],
  ];
  for (const [what, files, message] of manifests)
    it(`--dir with ${what}: CONTROLPLANE_CRD_MANIFEST_INVALID, exit 2, the API server never contacted`, async () => {
      const dir = await scratch();
      const manifestDir = join(dir, 'crds');
      if (files) {
        await mkdir(manifestDir);
        for (const [name, text] of Object.entries(files))
          await writeFile(join(manifestDir, name), text);
      }
      let connections = 0;
      const port = await listenTcp((socket) => {
        connections += 1;
        socket.destroy();
      });
      const kubeconfig = await writeUnreachableKubeconfig(dir, `https://127.0.0.1:${port}`);
      const result = await voe([
        'crds',
        'apply',
        '--dir',
        manifestDir,
        '--kubeconfig',
        kubeconfig,
        '--timeout',
        '1',
      ]);
      assert.strictEqual(result.code, 2, result.stderr);
      assert.strictEqual(result.stdout, '');
      assert.match(result.stderr, /CONTROLPLANE_CRD_MANIFEST_INVALID/);
      assert.match(result.stderr, message);
      assert.strictEqual(connections, 0);
    });

  const usage: Array<[string, string[], RegExp]> = [
    ['--timeout 0', ['--timeout', '0'], /must be a number of seconds from 1 to 2147483/],
    ['--timeout abc', ['--timeout', 'abc'], /must be a number of seconds from 1 to 2147483/],
    ['an argument', ['volumeexpansions'], /too many arguments for 'apply'/],
    ['an unknown option', ['--force'], /unknown option '--force'/],
  ];
  for (const [what, args, message] of usage)
    it(`${what}: a usage error, exit 2, the API server never contacted`, async () => {
      const dir = await scratch();
      let connections = 0;
      const port = await listenTcp((socket) => {
        connections += 1;
        socket.destroy();
      });
      const kubeconfig = await writeUnreachableKubeconfig(dir, `https://127.0.0.1:${port}`);
      const result = await voe(['crds', 'apply', '--kubeconfig', kubeconfig, ...args]);
      assert.strictEqual(result.code, 2, result.stderr);
      assert.strictEqual(result.stdout, '');
      assert.match(result.stderr, message);
      assert.strictEqual(connections, 0);
    });

  it('an unreadable kubeconfig: KUBE_KUBECONFIG_INVALID, exit 2', async () => {
    const result = await voe(['crds', 'apply', '--kubeconfig', '/nonexistent/kubeconfig']);
    assert.strictEqual(result.code, 2, result.stderr);
    assert.match(result.stderr, /KUBE_KUBECONFIG_INVALID/);
  });
});
