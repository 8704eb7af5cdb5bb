import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatCheckResult } from '../../../src/cli/format-check-result.js';
import {
  BROKEN_SECRETS,
  UNREACHABLE_TOKEN,
  writeBrokenKubeconfig,
  writeUnreachableKubeconfig,
} from '../../support/unreachable-kubeconfig.js';
import type { CheckResult } from '../../../src/check/check-resize.js';
import { runVoe } from '../../support/run-voe.js';
import { listenTcp } from '../../support/tcp-listener.js';

const voe = (args: string[]) =>
  runVoe(args, { env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' } });

describe('voe check (usage)', () => {
  it('--help describes the command and exits 0', async () => {
    const { code, stdout } = await voe(['check', '--help']);
    assert.strictEqual(code, 0);
    assert.match(stdout, /voe check \[options\] <namespace\/pvc>/);
    assert.match(
      stdout.replace(/\s+/g, ' '),
      /Exit 0 when allowed, 1 when refused \(a code 500 refusal too, e.g. an invalid Setting\), 2 when the check itself fails \(usage, kubeconfig, cluster not readable\)/,
    );
    assert.match(stdout, /--longhorn-v2-expansion/);
    assert.match(
      stdout.replace(/\s+/g, ' '),
      /--size <quantity> the requested size, e\.g\. 20Gi, read as the API server reads it from a JSON string .*\(rounded up to milli units: 10737418239\.9999 is 10Gi/,
    );
  });

  const usage: Array<[string, string[], RegExp]> = [
    ['missing --size', ['check', 'default/disk'], /required option '--size <quantity>'/],
    ['missing PVC', ['check', '--size', '1Gi'], /missing required argument/],
    ['PVC without a namespace', ['check', 'disk', '--size', '1Gi'], /CHECK_USAGE/],
    // The API path would be normalised: default/.. reads the Namespace "default", default/. the list of PVCs.
    [
      'a PVC named ..',
      ['check', 'default/..', '--size', '1Gi'],
      /^voe: CHECK_USAGE: "default\/\.\." is not NAMESPACE\/PVC of a PVC \(lower-case DNS names\), e\.g\. default\/vm1-disk-0\.\n$/,
    ],
    [
      'a PVC named .',
      ['check', 'default/.', '--size', '1Gi'],
      /CHECK_USAGE: "default\/\." is not NAMESPACE\/PVC of a PVC/,
    ],
    [
      'a namespace named ..',
      ['check', '../disk', '--size', '1Gi'],
      /CHECK_USAGE: "\.\.\/disk" is not NAMESPACE\/PVC of a PVC/,
    ],
    [
      'capitals',
      ['check', 'Default/Disk', '--size', '1Gi'],
      /CHECK_USAGE: "Default\/Disk" is not NAMESPACE\/PVC of a PVC/,
    ],
    ['bad quantity', ['check', 'default/disk', '--size', '20GB'], /KUBE_QUANTITY_INVALID/],
    // Read as the API server reads it from a JSON string: a byte order mark is no space to Go, and a
    // tab travels as the escape \t, which Go does not decode in a quantity.
    [
      'a size with a byte order mark',
      ['check', 'default/disk', '--size', '\ufeff20Gi'],
      /^voe: KUBE_QUANTITY_INVALID: the size "\ufeff20Gi" contains characters a Kubernetes quantity cannot hold \(U\+FEFF\)/,
    ],
    [
      'a size with a tab',
      ['check', 'default/disk', '--size', '\t20Gi'],
      /^voe: KUBE_QUANTITY_INVALID: the size "\\t20Gi" contains a JSON escape sequence/,
    ],
    [
      "a size beyond voe's bound",
      ['check', 'default/disk', '--size', '1e1000'],
      /^voe: KUBE_QUANTITY_OUT_OF_RANGE: Kubernetes quantity "1e1000" is 1e1000 or more/,
    ],
    // Read as Go reads them: past the size, to the kubeconfig.
    [
      'a size with a trailing U+0085 (Go white space)',
      ['check', 'default/disk', '--size', '20Gi\u0085', '--kubeconfig', '/nonexistent/kc'],
      /^voe: CHECK_KUBECONFIG/,
    ],
    [
      'a size with an exponent above 100',
      ['check', 'default/disk', '--size', '1e101', '--kubeconfig', '/nonexistent/kc'],
      /^voe: CHECK_KUBECONFIG/,
    ],
    [
      'bad policy',
      ['check', 'default/disk', '--size', '1Gi', '--longhorn-v2-expansion', 'maybe'],
      /Allowed choices are auto, deny, allow/,
    ],
    [
      'bad --kubevirt',
      ['check', 'default/disk', '--size', '1Gi', '--kubevirt', 'kubevirt'],
      /CHECK_USAGE/,
    ],
    [
      '--kubevirt no object can be named',
      ['check', 'default/disk', '--size', '1Gi', '--kubevirt', 'Harvester_System/kubevirt'],
      /^voe: CHECK_USAGE: --kubevirt "Harvester_System\/kubevirt" is not NAMESPACE\/NAME of an object/,
    ],
    [
      '--setting no object can be named',
      ['check', 'default/disk', '--size', '1Gi', '--setting', 'a/b'],
      /^voe: CHECK_USAGE: --setting "a\/b" is not a valid object name \(a lower-case DNS subdomain\), e\.g\. csi-online-expand-validation\.\n$/,
    ],
    [
      '--setting with capitals',
      ['check', 'default/disk', '--size', '1Gi', '--setting', 'Bad_Name'],
      /CHECK_USAGE: --setting "Bad_Name"/,
    ],
    [
      '--longhorn-namespace no namespace can be named',
      ['check', 'default/disk', '--size', '1Gi', '--longhorn-namespace', 'longhorn.system'],
      /CHECK_USAGE: --longhorn-namespace "longhorn\.system" is not a valid namespace name/,
    ],
    [
      'unreadable kubeconfig',
      ['check', 'default/disk', '--size', '1Gi', '--kubeconfig', '/nonexistent/kc'],
      /CHECK_KUBECONFIG/,
    ],
  ];
  for (const [name, args, stderr] of usage) {
    it(`${name} exits 2`, async () => {
      const result = await voe(args);
      assert.strictEqual(result.code, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.strictEqual(result.stdout, '');
    });
  }

  it('a kubeconfig with a YAML error exits 2 with CHECK_KUBECONFIG naming the line, never its secrets', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-check-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const result = await voe([
      'check',
      'default/disk',
      '--size',
      '20Gi',
      '--kubeconfig',
      await writeBrokenKubeconfig(dir),
    ]);
    assert.strictEqual(result.code, 2);
    assert.match(
      result.stderr,
      /^voe: CHECK_KUBECONFIG: the kubeconfig \S+ is not valid YAML: bad indentation of a mapping entry at line 8, column \d+; pass a readable file with --kubeconfig\.\n$/,
    );
    for (const secret of BROKEN_SECRETS) assert.isFalse(result.stderr.includes(secret));
  });

  it('an unreachable API server exits 2 with CHECK_API_FAILED', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-check-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = await writeUnreachableKubeconfig(dir);
    const result = await voe([
      'check',
      'default/disk',
      '--size',
      '20Gi',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(result.code, 2);
    assert.match(result.stderr, /CHECK_API_FAILED: reading PVC default\/disk failed/);
    assert.isFalse(result.stderr.includes(UNREACHABLE_TOKEN));
  });

  it('no kubeconfig anywhere: CHECK_KUBECONFIG says where it looked and what to pass, once', async () => {
    const home = await mkdtemp(join(tmpdir(), 'voe-check-home-'));
    onCleanup(() => rm(home, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    delete env['KUBECONFIG'];
    delete env['KUBERNETES_SERVICE_HOST'];
    const result = await runVoe(['check', 'default/disk', '--size', '20Gi'], { env });
    assert.strictEqual(result.code, 2);
    assert.strictEqual(
      result.stderr,
      'voe: CHECK_KUBECONFIG: no kubeconfig was found: $KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig.\n',
    );
  });

  it("a password in the kubeconfig's server URL never reaches the output", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-check-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = await writeUnreachableKubeconfig(
      dir,
      'https://admin:S3CRETPASS@127.0.0.1:1',
    );
    const result = await voe([
      'check',
      'default/disk',
      '--size',
      '20Gi',
      '--kubeconfig',
      kubeconfig,
    ]);
    assert.strictEqual(result.code, 2);
    assert.match(result.stderr, /CHECK_API_FAILED/);
    assert.isFalse(result.stderr.includes('S3CRETPASS'), result.stderr);
  });

  it('an API server that accepts connections and never answers: CHECK_API_FAILED after --timeout, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-check-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = await writeUnreachableKubeconfig(
      dir,
      `https://127.0.0.1:${await listenTcp()}`,
    );
    const result = await voe([
      'check',
      'default/disk',
      '--size',
      '20Gi',
      '--kubeconfig',
      kubeconfig,
      '--timeout',
      '1',
    ]);
    assert.strictEqual(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^voe: CHECK_API_FAILED: the API server at https:\/\/127\.0\.0\.1:\d+ did not answer every read within 1 s; check that it is reachable and not overloaded, or raise --timeout\.\n$/,
    );
    assert.strictEqual(result.stdout, '');
  });
});

describe('formatCheckResult', () => {
  it('prints the verdict, every finding and that nothing changed', () => {
    const result: CheckResult = {
      pvc: 'default/disk',
      from: '10Gi',
      to: '20Gi',
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: 'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ...',
      warnings: ['w1'],
      decision: 'gate-missing',
      findings: [
        {
          check: 'vm',
          outcome: 'pass',
          decision: 'online',
          message:
            'Running VM(s) use PVC default/disk (default/vm1): online expansion rules apply.',
        },
        {
          check: 'expand-disks',
          outcome: 'refuse',
          decision: 'gate-missing',
          message: 'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ...',
        },
        {
          check: 'longhorn',
          outcome: 'skip',
          decision: 'allowed',
          message: 'Not a Longhorn volume.',
        },
      ],
    };
    assert.strictEqual(
      formatCheckResult(result),
      [
        'PVC default/disk: 10Gi -> 20Gi',
        'Verdict: refused (422 Invalid, gate-missing)',
        'Message: PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ...',
        'Findings:',
        '  [pass]   vm            Running VM(s) use PVC default/disk (default/vm1): online expansion rules apply.',
        '  [refuse] expand-disks  PVC_EXPAND: kubevirt ExpandDisks not included in featureGate. ...',
        '  [skip]   longhorn      Not a Longhorn volume.',
        'Warnings:',
        '  w1',
        'Nothing was changed.',
        '',
      ].join('\n'),
    );
  });
});
