import { it } from 'mocha';
import { assert } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { shellQuote } from '../../../src/shell/index.js';

it('a plain path stays as it is; one with spaces, quotes, $ or globs is one shell word, read back unchanged by sh', async () => {
  assert.strictEqual(shellQuote('/tmp/voe/kubeconfig'), '/tmp/voe/kubeconfig');
  for (const path of [
    '/tmp/cp dir/kubeconfig',
    "/tmp/it's/kubeconfig",
    '/tmp/$HOME/`id`/*',
    '',
    '/tmp/a\nb',
  ]) {
    const { stdout } = await promisify(execFile)('sh', [
      '-c',
      `export KUBECONFIG=${shellQuote(path)}; printf %s "$KUBECONFIG"`,
    ]);
    assert.strictEqual(stdout, path);
  }
});
