import { describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install } from '@sinonjs/fake-timers';
import { KubeConfig, type User } from '@kubernetes/client-node';
import { AzureAuth } from '@kubernetes/client-node/dist/azure_auth.js';
import { ExecAuth } from '@kubernetes/client-node/dist/exec_auth.js';
import { FileAuth } from '@kubernetes/client-node/dist/file_auth.js';
import { GoogleCloudPlatformAuth } from '@kubernetes/client-node/dist/gcp_auth.js';
import { OpenIDConnectAuth } from '@kubernetes/client-node/dist/oidc_auth.js';
import { onCleanup } from '../../support/cleanup.js';
import { expectThrow } from '../../support/expect-error.js';
import {
  isKubeError,
  LeanKubeConfig,
  loadKubeConfig,
  type KubeClientConfig,
} from '../../../src/kube/index.js';
import { authenticatorFor } from '../../../src/kube/kube-authenticator.js';
import { inClusterEntries } from '../../../src/kube/read-kubeconfig.js';

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-lean-kubeconfig-'));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** What a kubeconfig applies to a request, in a form to compare (agent left out: voe drops it). */
async function applied(kubeConfig: KubeClientConfig): Promise<Record<string, unknown>> {
  const options: RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const { agent: _agent, ...rest } = options;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** client-node's own KubeConfig loading the same file: the behaviour to keep. */
function clientNodeLoad(file: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(file);
  return kubeConfig;
}

/** Runs `fn` with these environment variables (undefined: unset), restoring them after. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  const set = (values: Record<string, string | undefined>): void => {
    for (const [key, value] of Object.entries(values))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  };
  set(vars);
  try {
    return fn();
  } finally {
    set(saved);
  }
}

/** Files a kubeconfig may name, relative to its folder. */
async function writeCredentialFiles(dir: string): Promise<void> {
  await mkdir(join(dir, 'pki'));
  await writeFile(join(dir, 'pki', 'ca.crt'), 'CA-FILE');
  await writeFile(join(dir, 'pki', 'client.crt'), 'CERT-FILE');
  await writeFile(join(dir, 'pki', 'client.key'), 'KEY-FILE');
  await writeFile(join(dir, 'token'), 'TOKEN-FROM-FILE');
}

const KUBECONFIGS: Array<{ name: string; yaml: string[]; server: string }> = [
  {
    name: 'two contexts: the current one chooses cluster, user and namespace',
    yaml: [
      'current-context: second',
      'clusters:',
      '- {name: one, cluster: {server: "https://one.example:6443"}}',
      '- {name: two, cluster: {server: "https://two.example:6443/", insecure-skip-tls-verify: true, tls-server-name: api.two}}',
      'contexts:',
      '- {name: first, context: {cluster: one, user: alice}}',
      '- {name: second, context: {cluster: two, user: bob, namespace: harvester-system}}',
      'users:',
      '- {name: alice, user: {token: ALICE-TOKEN}}',
      '- {name: bob, user: {token: BOB-TOKEN, as: system:serviceaccount:x:y}}',
    ],
    server: 'https://two.example:6443',
  },
  {
    name: 'files relative to the kubeconfig: CA, client certificate and key',
    yaml: [
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://c.example", certificate-authority: pki/ca.crt}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'users: [{name: u, user: {client-certificate: pki/client.crt, client-key: pki/client.key}}]',
    ],
    server: 'https://c.example',
  },
  {
    name: 'inline data: CA, client certificate and key',
    yaml: [
      'current-context: c',
      `clusters: [{name: c, cluster: {server: "https://c.example", certificate-authority-data: ${b64('CA-DATA')}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      `users: [{name: u, user: {client-certificate-data: ${b64('CERT-DATA')}, client-key-data: ${b64('KEY-DATA')}}}]`,
    ],
    server: 'https://c.example',
  },
  {
    name: 'a token file (read at load) and basic auth',
    yaml: [
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://c.example"}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'users: [{name: u, user: {token-file: DIR/token, username: admin, password: secret}}]',
    ],
    server: 'https://c.example',
  },
  {
    name: 'a plain HTTP server allowed by insecure-skip-tls-verify',
    yaml: [
      'current-context: c',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'users: [{name: u, user: {}}]',
    ],
    server: 'http://127.0.0.1:8080',
  },
];

describe('LeanKubeConfig: what client-node KubeConfig does, without its models', () => {
  for (const each of KUBECONFIGS)
    it(`${each.name}: the same cluster, context and request options as client-node`, async () => {
      const dir = await scratch();
      await writeCredentialFiles(dir);
      const file = join(dir, 'kubeconfig');
      // A token-file is read as given (client-node makes only CA, certificate and key absolute).
      const text = ['apiVersion: v1', 'kind: Config', ...each.yaml, ''].join('\n');
      await writeFile(file, text.replace('DIR/', `${dir}/`));
      const lean = loadKubeConfig(file);
      const reference = clientNodeLoad(file);
      assert.strictEqual(lean.getCurrentCluster()?.server, each.server);
      assert.deepStrictEqual(lean.getCurrentCluster(), reference.getCurrentCluster());
      assert.deepStrictEqual(lean.getCurrentUser(), reference.getCurrentUser());
      assert.strictEqual(lean.getCurrentContext(), reference.getCurrentContext());
      assert.deepStrictEqual(
        lean.getContextObject(lean.getCurrentContext()),
        reference.getContextObject(reference.getCurrentContext()),
      );
      assert.deepStrictEqual(await applied(lean), await applied(reference));
    });

  it('the request options carry what the kubeconfig says (checked once without the reference)', async () => {
    const dir = await scratch();
    await writeCredentialFiles(dir);
    const file = join(dir, 'kubeconfig');
    await writeFile(
      file,
      ['apiVersion: v1', 'kind: Config', ...KUBECONFIGS[0]!.yaml, ''].join('\n'),
    );
    const options: RequestOptions = {};
    await loadKubeConfig(file).applyToHTTPSOptions(options);
    assert.deepStrictEqual(options, {
      rejectUnauthorized: false,
      servername: 'api.two',
      headers: {
        'Impersonate-User': 'system:serviceaccount:x:y',
        Authorization: 'Bearer BOB-TOKEN',
      },
    });
    const withFiles = join(dir, 'files');
    await writeFile(withFiles, ['apiVersion: v1', ...KUBECONFIGS[1]!.yaml, ''].join('\n'));
    const tls: RequestOptions = {};
    await loadKubeConfig(withFiles).applyToHTTPSOptions(tls);
    assert.deepStrictEqual(
      [tls.ca, tls.cert, tls.key].map((value) => String(value)),
      ['CA-FILE', 'CERT-FILE', 'KEY-FILE'],
    );
  });

  it('$KUBECONFIG lists files merged as client-node merges them: the last current-context wins; a name defined twice is refused', async () => {
    const dir = await scratch();
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    await writeFile(first, KUBECONFIGS[0]!.yaml.join('\n'));
    await writeFile(
      second,
      [
        'current-context: third',
        'clusters: [{name: three, cluster: {server: "https://three.example"}}]',
        'contexts: [{name: third, context: {cluster: three, user: carol}}]',
        'users: [{name: carol, user: {token: CAROL-TOKEN}}]',
      ].join('\n'),
    );
    const merged = withEnv({ KUBECONFIG: `${first}:${second}` }, () => loadKubeConfig());
    assert.strictEqual(merged.getCurrentCluster()?.server, 'https://three.example');
    assert.strictEqual(merged.contexts.length, 3);
    const twice = withEnv({ KUBECONFIG: `${first}:${first}` }, () =>
      expectThrow(
        () => loadKubeConfig(),
        (e: unknown) => isKubeError(e, 'KUBE_KUBECONFIG_INVALID'),
      ),
    );
    assert.strictEqual(
      (twice as Error).message,
      `the kubeconfig from $KUBECONFIG (${first}:${first}) is not a usable kubeconfig (Error)`,
    );
  });

  it('in a pod: the ServiceAccount as client-node reads it, its token read again once older than 60 s (bound tokens rotate)', async () => {
    const root = await scratch();
    const mount = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(mount, { recursive: true });
    await writeFile(join(mount, 'token'), 'TOKEN-1');
    await writeFile(join(mount, 'ca.crt'), 'SA-CA');
    await writeFile(join(mount, 'namespace'), 'harvester-system');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const lean = withEnv(env, () => new LeanKubeConfig(inClusterEntries(root)));
    const reference = withEnv(env, () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromCluster(root);
      return kubeConfig;
    });
    assert.strictEqual(lean.getCurrentCluster()?.server, 'https://[fd00::1]:443');
    assert.deepStrictEqual(lean.entries(), {
      clusters: reference.clusters,
      users: reference.users,
      contexts: reference.contexts,
      currentContext: reference.currentContext,
    });
    const clock = install({ toFake: ['Date'] });
    onCleanup(() => clock.uninstall());
    const authorization = async (): Promise<unknown> =>
      ((await applied(lean))['headers'] as Record<string, unknown>)['Authorization'];
    assert.strictEqual(await authorization(), 'Bearer TOKEN-1');
    const options: RequestOptions = {};
    await lean.applyToHTTPSOptions(options);
    assert.strictEqual(String(options.ca), 'SA-CA');
    await writeFile(join(mount, 'token'), 'TOKEN-2');
    clock.tick(59_000);
    assert.strictEqual(await authorization(), 'Bearer TOKEN-1', 'within 60 s: the token read');
    clock.tick(2_000);
    assert.strictEqual(await authorization(), 'Bearer TOKEN-2', 'after 60 s: read again');
  });

  it('a plain HTTP server without insecure-skip-tls-verify is refused as client-node refuses it', async () => {
    const dir = await scratch();
    const file = join(dir, 'kubeconfig');
    await writeFile(
      file,
      [
        'current-context: c',
        'clusters: [{name: c, cluster: {server: "http://127.0.0.1:8080"}}]',
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'users: [{name: u, user: {token: T}}]',
      ].join('\n'),
    );
    const refusal = async (kubeConfig: KubeClientConfig): Promise<string> =>
      kubeConfig.applyToHTTPSOptions({}).then(
        () => 'applied',
        (error: Error) => error.message,
      );
    assert.strictEqual(await refusal(loadKubeConfig(file)), await refusal(clientNodeLoad(file)));
    assert.match(await refusal(loadKubeConfig(file)), /HTTP protocol is not allowed/);
  });

  const MALFORMED: Array<{ name: string; text: string; reason: string }> = [
    { name: 'an empty file', text: '', reason: 'is not a usable kubeconfig (TypeError)' },
    {
      name: 'a cluster without a server',
      text: 'clusters: [{name: c, cluster: {certificate-authority-data: SECRET-CA}}]\nusers: [{name: u, user: {token: SECRET-TOKEN}}]\n',
      reason: 'is not a usable kubeconfig (Error)',
    },
    {
      name: 'a user without a name',
      text: 'users: [{user: {token: SECRET-TOKEN}}]\n',
      reason: 'is not a usable kubeconfig (Error)',
    },
    {
      name: 'a tab where YAML wants spaces',
      text: 'users:\n- name: u\n  user:\n\ttoken: SECRET-TOKEN\n',
      reason: 'is not valid YAML: ',
    },
  ];
  for (const each of MALFORMED)
    it(`${each.name}: KUBE_KUBECONFIG_INVALID naming the file, quoting none of it`, async () => {
      const dir = await scratch();
      const file = join(dir, 'kubeconfig');
      await writeFile(file, each.text);
      const error = expectThrow(
        () => loadKubeConfig(file),
        (e: unknown) => isKubeError(e, 'KUBE_KUBECONFIG_INVALID'),
      ) as Error;
      assert.isTrue(
        error.message.startsWith(`the kubeconfig ${file} ${each.reason}`),
        error.message,
      );
      assert.notMatch(error.message, /SECRET/);
      assert.isUndefined(error.cause);
    });

  const USERS: Array<{ user: Record<string, unknown>; expected: string | undefined }> = [
    { user: { token: 'T' }, expected: undefined },
    { user: { exec: { command: 'x' } }, expected: 'exec' },
    { user: { authProvider: { name: 'azure', config: { exec: 'x' } } }, expected: 'azure' },
    { user: { authProvider: { name: 'gcp' } }, expected: 'gcp' },
    { user: { authProvider: { name: 'exec' } }, expected: 'exec' },
    {
      user: { authProvider: { name: 'x', config: { exec: 'y', tokenFile: 'z' } } },
      expected: 'exec',
    },
    {
      user: { authProvider: { name: 'tokenFile', config: { tokenFile: '/t' } } },
      expected: 'file',
    },
    { user: { authProvider: { name: 'oidc', config: {} } }, expected: 'oidc' },
    { user: { authProvider: { name: 'other' } }, expected: undefined },
  ];
  it('the authenticator is the one client-node picks: the first of its list that takes the user', () => {
    // client-node's list, in its order (config.js KubeConfig constructor).
    const list: Array<[string, { isAuthProvider(user: User): boolean }]> = [
      ['azure', new AzureAuth()],
      ['gcp', new GoogleCloudPlatformAuth()],
      ['exec', new ExecAuth()],
      ['file', new FileAuth()],
      ['oidc', new OpenIDConnectAuth()],
    ];
    for (const { user, expected } of USERS) {
      const each = { name: 'u', ...user } as User;
      const picked = list.find(([, authenticator]) => authenticator.isAuthProvider(each))?.[0];
      assert.strictEqual(picked, expected, `client-node: ${JSON.stringify(user)}`);
      assert.strictEqual(authenticatorFor(each), expected, JSON.stringify(user));
    }
  });
});
