import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { shellQuote } from '../../../src/cli/shell-quote.js';

test('a plain path stays as it is; one with spaces, quotes, $ or globs is one shell word, read back unchanged by sh', async () => {
  assert.equal(shellQuote('/tmp/voe/kubeconfig'), '/tmp/voe/kubeconfig');
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
    assert.equal(stdout, path);
  }
});
