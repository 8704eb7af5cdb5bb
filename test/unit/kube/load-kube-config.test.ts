import { it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { expectThrow } from '../../support/expect-error.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isKubeError, loadKubeConfig } from '../../../src/kube/index.js';
import {
  BROKEN_SECRETS,
  writeBrokenKubeconfig,
  writeUnreachableKubeconfig,
} from '../../support/unreachable-kubeconfig.js';

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-kubeconfig-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

it('a kubeconfig file loads', async () => {
  const kubeConfig = loadKubeConfig(await writeUnreachableKubeconfig(await scratch()));
  assert.strictEqual(kubeConfig.getCurrentCluster()?.server, 'https://127.0.0.1:1');
});

it('a YAML error names the file and the line but never quotes the file (it holds keys and tokens)', async () => {
  const path = await writeBrokenKubeconfig(await scratch());
  const error = (() => {
    try {
      loadKubeConfig(path);
      return undefined;
    } catch (e) {
      return e;
    }
  })();
  assert.ok(isKubeError(error, 'KUBE_KUBECONFIG_INVALID'), String(error));
  assert.match(
    error.message,
    new RegExp(
      `^the kubeconfig ${path} is not valid YAML: bad indentation of a mapping entry at line 8, column \\d+$`,
    ),
  );
  for (const secret of BROKEN_SECRETS) assert.isFalse(error.message.includes(secret));
  assert.isUndefined(error.cause, 'no cause that a log could print');
});

it('a missing file is named with the errno code', () => {
  expectThrow(
    () => loadKubeConfig('/nonexistent/kubeconfig'),
    (e: unknown) =>
      isKubeError(e, 'KUBE_KUBECONFIG_INVALID') &&
      e.message === 'the kubeconfig /nonexistent/kubeconfig cannot be read (ENOENT)',
  );
});

it('a kubeconfig whose current context names no cluster (after kubectl config delete-context), or without any, is refused naming why; none found anywhere is refused too, never taken for a plain-HTTP localhost:8080', async () => {
  const dir = await scratch();
  const path = await writeUnreachableKubeconfig(dir);
  const text = await readFile(path, 'utf8');
  const gone = join(dir, 'gone.kubeconfig');
  await writeFile(gone, text.replace(/^current-context: .*$/m, 'current-context: gone'));
  expectThrow(
    () => loadKubeConfig(gone),
    (e: unknown) =>
      isKubeError(e, 'KUBE_KUBECONFIG_INVALID') &&
      e.message ===
        `the kubeconfig ${gone} has no cluster to talk to: its current-context "gone" names no context with a cluster; choose one (kubectl config use-context NAME) or pass another --kubeconfig`,
  );
  const empty = join(dir, 'empty.kubeconfig');
  await writeFile(empty, 'apiVersion: v1\nkind: Config\nclusters: []\n');
  expectThrow(
    () => loadKubeConfig(empty),
    (e: unknown) =>
      isKubeError(e, 'KUBE_KUBECONFIG_INVALID') &&
      /has no cluster to talk to: it sets no current-context/.test(e.message),
  );
  // Nothing anywhere: a HOME without ~/.kube/config, no $KUBECONFIG, no service account.
  const module = new URL('../../../src/kube/index.js', import.meta.url).href;
  const script = `const { loadKubeConfig } = await import(${JSON.stringify(module)});
    try { loadKubeConfig(); process.stdout.write('loaded'); } catch (e) { process.stdout.write(e.code + ': ' + e.message); }`;
  const env = { PATH: process.env['PATH'] ?? '', HOME: dir };
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { env },
  );
  assert.strictEqual(
    stdout,
    'KUBE_KUBECONFIG_INVALID: no kubeconfig was found: $KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig',
  );
});
