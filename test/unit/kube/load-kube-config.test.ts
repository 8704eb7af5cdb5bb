import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isKubeError, loadKubeConfig } from '../../../src/kube/index.js';
import { BROKEN_SECRETS, writeBrokenKubeconfig, writeUnreachableKubeconfig } from '../../support/unreachable-kubeconfig.js';

async function scratch(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-kubeconfig-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('a kubeconfig file loads', async (t) => {
  const kubeConfig = loadKubeConfig(await writeUnreachableKubeconfig(await scratch(t)));
  assert.equal(kubeConfig.getCurrentCluster()?.server, 'https://127.0.0.1:1');
});

test('a YAML error names the file and the line but never quotes the file (it holds keys and tokens)', async (t) => {
  const path = await writeBrokenKubeconfig(await scratch(t));
  const error = (() => { try { loadKubeConfig(path); return undefined; } catch (e) { return e; } })();
  assert.ok(isKubeError(error, 'KUBE_KUBECONFIG_INVALID'), String(error));
  assert.match(error.message, new RegExp(`^the kubeconfig ${path} not valid YAML: bad indentation of a mapping entry at line 8, column \\d+$`));
  for (const secret of BROKEN_SECRETS) assert.equal(error.message.includes(secret), false);
  assert.equal(error.cause, undefined, 'no cause that a log could print');
});

test('a missing file is named with the errno code', () => {
  assert.throws(() => loadKubeConfig('/nonexistent/kubeconfig'),
    (e: unknown) => isKubeError(e, 'KUBE_KUBECONFIG_INVALID') && e.message === 'the kubeconfig /nonexistent/kubeconfig cannot be read (ENOENT)');
});
