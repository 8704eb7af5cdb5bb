import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BROKEN_SECRETS,
  UNREACHABLE_TOKEN,
  writeBrokenKubeconfig,
  writeUnreachableKubeconfig,
} from '../../support/unreachable-kubeconfig.js';
import { runVoe } from '../../support/run-voe.js';

const voe = (args: string[]) => runVoe(args, { timeout: 30_000 });

describe('voe serve (start-up failures; no API server is reached)', () => {
  it("flags of --dev's registration given without --dev are refused, not silently ignored", async () => {
    const result = await voe([
      'serve',
      '--tls-cert-file',
      'tls.crt',
      '--tls-key-file',
      'tls.key',
      '--webhook-configuration-name',
      'mine',
      '--cache-sync-timeout',
      '5',
    ]);
    assert.strictEqual(result.code, 2);
    assert.strictEqual(
      result.stderr,
      'voe: WEBHOOK_INVALID_OPTIONS: --webhook-configuration-name, --cache-sync-timeout apply only with --dev (to the ValidatingWebhookConfiguration it registers); ' +
        'in cluster the configuration is installed with the webhook (manifests/webhook.yaml). Remove them, or add --dev.\n',
    );
    const one = await voe([
      'serve',
      '--tls-cert-file',
      'tls.crt',
      '--tls-key-file',
      'tls.key',
      '--registration-timeout',
      '5',
    ]);
    assert.match(
      one.stderr,
      /^voe: WEBHOOK_INVALID_OPTIONS: --registration-timeout applies only with --dev/,
    );
  });

  it('a broken kubeconfig, a missing one and an unreachable API server exit 2 with a coded one-line message, no stack, no secrets', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-serve-usage-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const tls = [
      '--tls-cert-file',
      join(dir, 'tls.crt'),
      '--tls-key-file',
      join(dir, 'tls.key'),
      '--port',
      '0',
    ];
    const cases: Array<[string[], RegExp]> = [
      [
        ['serve', '--kubeconfig', await writeBrokenKubeconfig(dir), ...tls],
        /^voe: KUBE_KUBECONFIG_INVALID: the kubeconfig \S+ is not valid YAML: bad indentation of a mapping entry at line 8, column \d+\n$/,
      ],
      [
        ['serve', '--kubeconfig', join(dir, 'missing'), ...tls],
        /^voe: KUBE_KUBECONFIG_INVALID: the kubeconfig \S+ cannot be read \(ENOENT\)\n$/,
      ],
      [
        ['serve', '--kubeconfig', await writeUnreachableKubeconfig(dir), ...tls],
        /^voe: WEBHOOK_API_FAILED: Cannot start watching the cluster at https:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*Check --kubeconfig and that the API server is reachable\.\n$/,
      ],
    ];
    for (const [args, stderr] of cases) {
      const result = await voe(args);
      assert.strictEqual(result.code, 2, args.join(' '));
      assert.match(result.stderr, stderr);
      assert.notMatch(result.stderr, /\n\s+at /, 'no stack trace');
      for (const secret of [UNREACHABLE_TOKEN, ...BROKEN_SECRETS])
        assert.isFalse(result.stderr.includes(secret));
    }
  });
});
