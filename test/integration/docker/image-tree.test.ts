/**
 * The images' files, used as the charts use them, without a container engine: each image's file
 * tree is assembled from the Dockerfile's own COPY lines (test/support/docker/image-tree.ts), and
 * every command a chart runs is started from that tree through the image's ENTRYPOINT, as the
 * charts' user (uid/gid 65532, no home), with the chart's ServiceAccount credentials: voe crds
 * apply (hook Job), voe certs ensure (hook Job), voe serve (Deployment, up to /readyz), voe watch (tracker Deployment, up to
 * /readyz), voe disable (pre-delete hook) from the voe image; voe csi (the guest chart's driver
 * container) from the voe-node image, whose socket answers Identity.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  chmod,
  chown,
  lchown,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { assembleImageTree } from '../../support/docker/image-tree.js';
import { execForm, parseDockerfile } from '../../support/dockerfile.js';
import {
  ensureNamespaces,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
  type Account,
} from '../../support/charts/cluster.js';
import { HOST_NAMESPACES } from '../../support/charts/host-values.js';
import {
  GUEST_CHART,
  HOST_CHART,
  oneOf,
  useHelm,
  type Helm,
  type Rendered,
} from '../../support/charts/render.js';
import { writeSecretVolume } from '../../support/charts/secret-volume.js';
import { createCsiClient } from '../../support/guest-csi-bridge/csi-client.js';
import { eventually } from '../../support/eventually.js';
import { onCleanup } from '../../support/cleanup.js';

const NS = 'voe-system';
/** The charts' runAsUser and runAsGroup (and the images' USER). */
const UID = 65532;
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];

interface Started {
  child: ChildProcess;
  output: () => string;
  ended: Promise<number | null>;
}

/** The first container of a rendered workload (Deployment, DaemonSet, Job). */
function containerOf(object: Rendered, name?: string): { args: string[] } {
  const spec = object['spec'] as {
    template: { spec: { containers: Array<{ name: string; args: string[] }> } };
  };
  const containers = spec.template.spec.containers;
  return name ? containers.find((c) => c.name === name)! : containers[0]!;
}

/** `args` with each --flag=value of `replace` given the new value (it must be there). */
function withFlags(args: string[], replace: Record<string, string>): string[] {
  const result = [...args];
  for (const [flag, value] of Object.entries(replace)) {
    const index = result.findIndex((arg) => arg.startsWith(`${flag}=`));
    assert.isAtLeast(index, 0, `${flag} among ${args.join(' ')}`);
    result[index] = `${flag}=${value}`;
  }
  return result;
}

function get(url: string, options: { ca?: string; servername?: string } = {}): Promise<string> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        ...(options.ca ? { ca: options.ca, servername: options.servername } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      },
    )
      .on('error', reject)
      .end();
  });
}

describe("the images' file trees (from the Dockerfile's COPY lines) run every command the charts run, as uid 65532", function () {
  this.timeout(10 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;
  let host: Rendered[];
  let withEnable: Rendered[];
  let dir: string;
  const trees: Record<string, string> = {};
  const running: Started[] = [];

  before(async () => {
    helm = await useHelm();
    host = await helm.template(HOST_CHART);
    // The pre-delete voe disable hook comes with tracker.enable only.
    withEnable = await helm.template(HOST_CHART, { values: { tracker: { enable: true } } });
    dir = await mkdtemp(join(tmpdir(), 'voe-image-tree-'));
    await chmod(dir, 0o755);
    for (const stage of ['voe', 'voe-node']) {
      trees[stage] = join(dir, stage);
      await mkdir(trees[stage]);
      await assembleImageTree(stage, trees[stage]);
    }
    await ensureNamespaces(cp.current.kubeConfig, HOST_NAMESPACES);
    for (const object of withEnable.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
      await serverSideApply(cp.current.kubeConfig, stripHook(object));
    await serverSideApply(cp.current.kubeConfig, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { namespace: 'harvester-system', name: 'kubevirt' },
      spec: { configuration: { developerConfiguration: { featureGates: ['ExpandDisks'] } } },
    } as Rendered);
    await serverSideApply(
      cp.current.kubeConfig,
      oneOf(host, 'ValidatingWebhookConfiguration', 'voe'),
    );
  });
  after(async () => {
    for (const { child, ended } of running) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await ended;
    }
    await cp.current.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .deleteValidatingWebhookConfiguration({ name: 'voe' })
      .catch(() => undefined);
    await helm?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A kubeconfig of `account`, readable by the charts' user alone. */
  async function kubeconfigOf(account: Account): Promise<string> {
    const { path } = await cp.current.mintKubeConfig(account.user, account.groups);
    const copy = join(dir, `${account.name}.kubeconfig`);
    await writeFile(copy, await readFile(path), { mode: 0o600 });
    await chown(copy, UID, UID);
    return copy;
  }

  /** The image's ENTRYPOINT (its /app mapped onto the tree) with `args`, as the charts' user. */
  function start(stage: string, args: string[]): Started {
    const tree = trees[stage]!;
    const [file, ...rest] = execForm(parseDockerfile(), stage, 'ENTRYPOINT')!.map((part) =>
      part.startsWith('/app/') ? join(tree, part) : part,
    );
    const child = spawn(file!, [...rest, ...args], {
      cwd: join(tree, 'app'),
      uid: UID,
      gid: UID,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: '/nonexistent',
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
    const started = { child, output: () => out, ended };
    running.push(started);
    onCleanup(() => {
      if (child.exitCode !== null) process.stderr.write(out.slice(-4000));
    });
    return started;
  }

  async function runToEnd(stage: string, args: string[]): Promise<string> {
    const run = start(stage, args);
    const code = await run.ended;
    assert.strictEqual(code, 0, `voe ${args.join(' ')}: ${run.output()}`);
    return run.output();
  }

  /** Waits until `run` prints a line matching `pattern` (failing at once when it ends). */
  async function until(run: Started, pattern: RegExp, what: string): Promise<RegExpExecArray> {
    await eventually(
      () => {
        if (run.child.exitCode !== null)
          assert.fail(`${what}: exited ${run.child.exitCode}: ${run.output()}`);
        return pattern.test(run.output());
      },
      60_000,
      what,
    );
    return pattern.exec(run.output())!;
  }

  it('the trees are what the COPY lines make: the compiled CLI, the CSI proto, production dependencies only', async () => {
    for (const tree of Object.values(trees)) {
      await readFile(join(tree, 'app/dist/src/cli/main.js'));
      await readFile(join(tree, 'app/src/guest-csi-bridge/proto/csi.proto'));
      await readFile(join(tree, 'app/node_modules/@grpc/grpc-js/package.json'));
      const missing = await readFile(join(tree, 'app/node_modules/mocha/package.json')).catch(
        () => undefined,
      );
      assert.isUndefined(missing, 'dev dependencies are pruned');
    }
  });

  it('voe image: voe crds apply (pre-install/pre-upgrade hook, as voe-crds-hook) applies the CRD the tree ships', async () => {
    const crds = containerOf(oneOf(host, 'Job', 'voe-crds-hook')).args;
    const printed = await runToEnd('voe', [
      ...crds,
      `--kubeconfig=${await kubeconfigOf(serviceAccount(NS, 'voe-crds-hook'))}`,
    ]);
    assert.match(
      printed,
      /^volumeexpansions\.storage\.voe\.dev: (applied|unchanged), Established$/m,
    );
  });

  it('voe image: voe certs ensure (hook Job, as voe-certs-hook), voe serve (Deployment, as voe-webhook) ready on /readyz, voe watch (tracker, as voe-tracker) ready, voe disable (pre-delete hook, as voe-disable-hook)', async () => {
    const certs = containerOf(oneOf(host, 'Job', 'voe-certs-hook')).args;
    const printed = await runToEnd('voe', [
      ...certs,
      `--kubeconfig=${await kubeconfigOf(serviceAccount(NS, 'voe-certs-hook'))}`,
    ]);
    assert.match(printed, /^ValidatingWebhookConfiguration voe: caBundle updated$/m);

    const secret = await cp.current.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: NS, name: 'voe-webhook-tls' });
    const tls = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    const tlsDir = join(dir, 'tls');
    await writeSecretVolume(tlsDir, tls);
    await chownTree(tlsDir);
    const serve = start('voe', [
      ...withFlags(containerOf(oneOf(host, 'Deployment', 'voe-webhook')).args, {
        '--port': '0',
        '--tls-cert-file': join(tlsDir, 'tls.crt'),
        '--tls-key-file': join(tlsDir, 'tls.key'),
      }),
      '--bind-address=127.0.0.1',
      `--kubeconfig=${await kubeconfigOf(serviceAccount(NS, 'voe-webhook'))}`,
    ]);
    const [, port] = await until(
      serve,
      /webhooks at https:\/\/127\.0\.0\.1:(\d+)/,
      'voe serve listening',
    );
    await eventually(
      async () =>
        (await get(`https://127.0.0.1:${port}/readyz`, {
          ca: tls['ca.crt']!,
          servername: 'voe-webhook.voe-system.svc',
        })) === '200 ok',
      60_000,
      'voe serve ready',
    );

    const watch = start('voe', [
      ...withFlags(containerOf(oneOf(host, 'Deployment', 'voe-tracker')).args, { '--port': '0' }),
      '--bind-address=127.0.0.1',
      `--kubeconfig=${await kubeconfigOf(serviceAccount(NS, 'voe-tracker'))}`,
    ]);
    const [, url] = await until(
      watch,
      /\/metrics at (http:\/\/127\.0\.0\.1:\d+)/,
      'voe watch serving',
    );
    await eventually(
      async () => (await get(`${url}/readyz`)).startsWith('200 '),
      60_000,
      'voe watch ready',
    );

    const disable = containerOf(oneOf(withEnable, 'Job', 'voe-disable-hook')).args;
    await runToEnd('voe', [
      ...disable,
      `--kubeconfig=${await kubeconfigOf(serviceAccount(NS, 'voe-disable-hook'))}`,
    ]);
  });

  it("voe-node image: voe csi with the guest chart's driver arguments serves its socket, which answers Identity", async () => {
    const guest = await helm.template(GUEST_CHART, { namespace: 'kube-system' });
    const node = oneOf(guest, 'DaemonSet', 'voe-csi-node');
    const args = containerOf(node, 'voe-csi').args;
    const socketDir = join(dir, 'csi');
    await mkdir(socketDir);
    await chown(socketDir, UID, UID);
    const socket = join(socketDir, 'csi.sock');
    const kubeconfig = await kubeconfigOf(serviceAccount('default', 'guest-cluster'));
    const values: Record<string, string> = {
      '--endpoint': `unix://${socket}`,
      '--node-id': 'guest-node-1',
      '--kubeconfig': kubeconfig,
      // The chart's 9810 may be taken on this machine: any free port.
      '--metrics-port': '0',
    };
    const csi = start(
      'voe-node',
      args.map((arg, i) => values[args[i - 1] ?? ''] ?? arg),
    );
    const client = createCsiClient(socket);
    onCleanup(() => client.close());
    let info: { name: string } | undefined;
    await eventually(
      async () => {
        if (csi.child.exitCode !== null) assert.fail(`voe csi exited: ${csi.output()}`);
        info = await client.call<{ name: string }>(
          'Identity',
          'GetPluginInfo',
          {},
          { timeoutMs: 2_000 },
        );
        return true;
      },
      60_000,
      'voe csi answering Identity',
    );
    assert.strictEqual(info!.name, 'driver.harvesterhci.io');
    const probe = await client.call<{ ready?: { value: boolean } }>('Identity', 'Probe');
    assert.isDefined(probe);
  });
});

/** Gives `path` and everything under it to the charts' user (what fsGroup does to a mounted Secret). */
async function chownTree(path: string): Promise<void> {
  await lchown(path, UID, UID);
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child);
    else await lchown(child, UID, UID);
  }
}

/** `object` without its Helm hook annotations: applied as a plain object. */
function stripHook(object: Rendered): Rendered {
  const annotations = { ...(object.metadata?.annotations ?? {}) };
  for (const key of Object.keys(annotations))
    if (key.startsWith('helm.sh/hook')) delete annotations[key];
  return { ...object, metadata: { ...object.metadata, annotations } };
}
