/**
 * The guest probe's pods/exec transport end to end with the tracker's ServiceAccount bound exactly
 * as the host chart binds it (helm template with tracker.guestProbe pods-exec and
 * tracker.guestProbeNamespaces [vms-a]; its token from the TokenRequest API, never admin
 * credentials): a real kube-apiserver authorizes the exec and proxies it to a kubelet actor
 * (test/support/vmwatcher/kubelet-exec-actor.ts) on the node the launcher pods are bound to.
 *
 * No libvirt runs here: the actor runs virsh with execFile, and the virsh on its PATH is the fake
 * of test/support/vmwatcher/fake-virsh.ts, answering from the fixture below (virsh's own text and
 * exit codes).
 *
 * Both ways an API server reaches the kubelet for our client's exec (@kubernetes/client-node
 * offers v5.channel.k8s.io first) are run, each on a control plane of its own: with the API
 * server's default flags, where TranslateStreamCloseWebsocketRequests (beta, on since 1.30) makes
 * it speak SPDY/3.1 to the kubelet, and with that gate off, as in 1.29 and earlier, where it
 * proxies the client's WebSocket as it is and the kubelet answers in v4.channel.k8s.io. The actor
 * records which one reached it. Authorization is the same either way: the exec is a GET on
 * pods/exec (authorized as get before Kubernetes 1.35), decided before any proxying.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { ExpansionActors } from '../../../src/demo/index.js';
import { vmi } from '../../../src/demo/staged-objects.js';
import { requestJson, resourcePath } from '../../../src/kube/index.js';
import type { VirtualMachineInstance } from '../../../src/model/index.js';
import { GuestProbeError } from '../../../src/vmwatcher/probe/guest-probe-error.js';
import { NON_ROOT_LAUNCHER_URI } from '../../../src/vmwatcher/probe/launcher-libvirt-uri.js';
import { podExecVirsh } from '../../../src/vmwatcher/probe/pod-exec-virsh.js';
import { parseDomblkinfo } from '../../../src/vmwatcher/probe/virsh-output.js';
import type { VirshHost } from '../../../src/vmwatcher/probe/virsh-transport.js';
import { ensureNamespaces, serverSideApply } from '../../support/charts/cluster.js';
import { HOST_NAMESPACES } from '../../support/charts/host-values.js';
import { HOST_CHART, useHelm } from '../../support/charts/render.js';
import { expectRejection } from '../../support/expect-error.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import type { ControlPlane } from '../../../src/controlplane/index.js';
import { installFakeVirsh, type FakeVirshFixture } from '../../support/vmwatcher/fake-virsh.js';
import { KubeletExecActor } from '../../support/vmwatcher/kubelet-exec-actor.js';

/** The two ways to the kubelet, and the API server flags that choose them. */
const PATHS = [
  { name: 'default flags: SPDY/3.1 to the kubelet', upgrade: 'spdy/3.1', apiServerArgs: [] },
  {
    name: 'TranslateStreamCloseWebsocketRequests off: the WebSocket proxied to the kubelet',
    upgrade: 'websocket',
    apiServerArgs: ['--feature-gates=TranslateStreamCloseWebsocketRequests=false'],
  },
];
const planes: ControlPlane[] = [];
for (const path of PATHS) planes.push(await useControlPlane({ apiServerArgs: path.apiServerArgs }));

const RELEASE_NAMESPACE = 'voe-system';
const TRACKER = 'voe-tracker';
const LISTED = 'vms-a';
const NOT_LISTED = 'vms-c';
/** A namespace where the tracker holds only `create` on pods/exec (not as the chart binds it). */
const CREATE_ONLY = 'vms-d';
const NODE = 'harvester-node-exec';
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
const DOMAIN = `${LISTED}_vm-exec`;
const BLKINFO =
  'Capacity:       10737418240\nAllocation:     1073741824\nPhysical:       10737418240\n\n';
const FIXTURE: FakeVirshFixture = {
  uri: NON_ROOT_LAUNCHER_URI,
  domains: {
    [DOMAIN]: {
      blklist:
        ' Target   Source\n' +
        '-------------------------------------------------------------------\n' +
        ' vda      /var/run/kubevirt-private/vmi-disks/rootdisk/disk.img\n\n',
      xml: `<domain type='kvm'>\n  <name>${DOMAIN}</name>\n</domain>\n`,
      blkinfo: { vda: BLKINFO },
    },
  },
};

/** The tracker's ServiceAccount token (TokenRequest, as the kubelet mounts one) in a KubeConfig for the API server. */
async function trackerKubeConfig(admin: KubeConfig): Promise<KubeConfig> {
  const { status } = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace: RELEASE_NAMESPACE,
    name: TRACKER,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster || !status?.token) throw new Error('no cluster or token for the tracker');
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ ...cluster, name: 'host' }],
    users: [{ name: TRACKER, token: status.token }],
    contexts: [{ name: 'tracker', cluster: 'host', user: TRACKER }],
    currentContext: 'tracker',
  });
  return config;
}

/** A running VMI in `namespace` and its virt-launcher pod bound to the actor's node. */
async function launcherIn(admin: KubeConfig, namespace: string): Promise<VirshHost> {
  await requestJson(admin, {
    method: 'POST',
    path: resourcePath({ ...VMIS, namespace }),
    body: { ...vmi('vm-exec', { namespace }), metadata: { name: 'vm-exec', namespace } },
  });
  const stored = await requestJson<VirtualMachineInstance>(admin, {
    method: 'GET',
    path: resourcePath({ ...VMIS, namespace, name: 'vm-exec' }),
  });
  const pod = await new ExpansionActors(admin).createLauncher(stored, {
    name: 'virt-launcher-vm-exec-abcde',
    node: NODE,
  });
  return { namespace, launcherPod: pod.metadata?.name, launcherUser: undefined };
}

/** A Role with `create` alone on pods/exec, bound to the tracker in `namespace`. */
function createOnlyRbac(namespace: string): KubernetesObject[] {
  const name = 'voe-tracker-create-only';
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace },
      rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs: ['create'] }],
    } as KubernetesObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: TRACKER, namespace: RELEASE_NAMESPACE }],
    } as KubernetesObject,
  ];
}

PATHS.forEach((path, index) => {
  const cp = planes[index]!;
  describe(`virsh through pods/exec as the chart's tracker ServiceAccount (${path.name})`, function () {
    this.timeout(5 * 60_000);
    let actor: KubeletExecActor | undefined;
    let binDir = '';
    let tracker: KubeConfig;
    let listed: VirshHost;
    let notListed: VirshHost;
    let createOnly: VirshHost;

    before(async () => {
      const helm = await useHelm();
      try {
        await ensureNamespaces(cp.kubeConfig, [
          ...HOST_NAMESPACES,
          LISTED,
          NOT_LISTED,
          CREATE_ONLY,
        ]);
        const rendered = await helm.template(HOST_CHART, {
          values: { tracker: { guestProbe: 'pods-exec', guestProbeNamespaces: [LISTED] } },
        });
        for (const object of rendered.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
          await serverSideApply(cp.kubeConfig, object);
      } finally {
        await helm.cleanup();
      }
      binDir = await installFakeVirsh(await mkdtemp(join(tmpdir(), 'voe-fake-virsh-')), FIXTURE);
      actor = await KubeletExecActor.start(cp.kubeConfig, { nodeName: NODE, binDir });
      tracker = await trackerKubeConfig(cp.kubeConfig);
      listed = await launcherIn(cp.kubeConfig, LISTED);
      notListed = await launcherIn(cp.kubeConfig, NOT_LISTED);
      createOnly = await launcherIn(cp.kubeConfig, CREATE_ONLY);
      for (const object of createOnlyRbac(CREATE_ONLY))
        await serverSideApply(cp.kubeConfig, object);
    });
    after(async () => {
      await actor?.stop();
      if (binDir) await rm(binDir, { recursive: true, force: true });
    });

    it('runs virsh in the launcher of a listed namespace and answers its stdout', async () => {
      const transport = podExecVirsh(tracker);
      const text = await transport.virsh(
        listed,
        ['domblkinfo', DOMAIN, 'vda'],
        AbortSignal.timeout(20_000),
      );
      assert.strictEqual(text, BLKINFO);
      assert.strictEqual(parseDomblkinfo(text).capacity, 10_737_418_240n);
      assert.deepStrictEqual(actor?.execs.at(-1), {
        namespace: LISTED,
        pod: 'virt-launcher-vm-exec-abcde',
        container: 'compute',
        command: ['virsh', '-c', NON_ROOT_LAUNCHER_URI, 'domblkinfo', DOMAIN, 'vda'],
        upgrade: path.upgrade,
      });
      const xml = await transport.virsh(listed, ['dumpxml', DOMAIN], AbortSignal.timeout(20_000));
      assert.include(xml, `<name>${DOMAIN}</name>`);
    });

    it("answers a non-zero exit as PROBE_VIRSH_FAILED with the exit code and virsh's stderr", async () => {
      const error = (await expectRejection(
        podExecVirsh(tracker).virsh(
          listed,
          ['domblkinfo', `${LISTED}_vm-gone`, 'vda'],
          AbortSignal.timeout(20_000),
        ),
        (e: GuestProbeError) => e instanceof GuestProbeError && e.code === 'PROBE_VIRSH_FAILED',
      )) as GuestProbeError;
      assert.strictEqual(error.details['exitCode'], 1);
      assert.strictEqual(
        error.details['stderr'],
        `error: failed to get domain '${LISTED}_vm-gone'\n`,
      );
      assert.include(error.message, `failed to get domain '${LISTED}_vm-gone'`);
      assert.include(error.message, `${LISTED}/virt-launcher-vm-exec-abcde (compute)`);
      assert.include(error.message, 'exit code 1');
    });

    it('is refused (403) in a namespace the chart does not list, naming it and the chart value', async () => {
      const before = actor?.execs.length;
      const error = (await expectRejection(
        podExecVirsh(tracker).virsh(
          notListed,
          ['domblkinfo', `${NOT_LISTED}_vm-exec`, 'vda'],
          AbortSignal.timeout(20_000),
        ),
        (e: GuestProbeError) => e instanceof GuestProbeError && e.code === 'PROBE_EXEC_FORBIDDEN',
      )) as GuestProbeError;
      assert.include(error.message, `namespace ${NOT_LISTED}`);
      assert.include(error.message, 'tracker.guestProbeNamespaces');
      assert.deepStrictEqual(error.details, {
        namespace: NOT_LISTED,
        chartValue: 'tracker.guestProbeNamespaces',
      });
      assert.strictEqual(actor?.execs.length, before, 'the exec never reached the kubelet');
      // The same exec with admin credentials reaches the kubelet: the refusal is the ServiceAccount's RBAC.
      const fixtureless = (await expectRejection(
        podExecVirsh(cp.kubeConfig).virsh(
          notListed,
          ['domblkinfo', `${NOT_LISTED}_vm-exec`, 'vda'],
          AbortSignal.timeout(20_000),
        ),
        (e: GuestProbeError) => e.code === 'PROBE_VIRSH_FAILED',
      )) as GuestProbeError;
      assert.strictEqual(fixtureless.details['exitCode'], 1);
      assert.strictEqual(actor?.execs.at(-1)?.namespace, NOT_LISTED);
    });

    it('is refused with create alone on pods/exec: a WebSocket exec is authorized as get', async () => {
      const before = actor?.execs.length;
      await expectRejection(
        podExecVirsh(tracker).virsh(
          createOnly,
          ['domblkinfo', `${CREATE_ONLY}_vm-exec`, 'vda'],
          AbortSignal.timeout(20_000),
        ),
        (e: GuestProbeError) => e instanceof GuestProbeError && e.code === 'PROBE_EXEC_FORBIDDEN',
      );
      assert.strictEqual(actor?.execs.length, before, 'the exec never reached the kubelet');
    });
  });
});
