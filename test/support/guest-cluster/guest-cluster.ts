import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before } from 'mocha';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { ControlPlane } from '../../../src/controlplane/index.js';
import type { ManagedProcess } from '../../../src/controlplane/managed-process.js';
import {
  buildGuestTools,
  type GuestToolPaths,
} from '../../../src/controlplane/guest-tools/index.js';
import { createKubeHostApi } from '../../../src/guest-csi-bridge/host/kube-host-api.js';
import { requestJson } from '../../../src/kube/index.js';
import { useHelm, type Rendered } from '../charts/render.js';
import { hasCapSysResource } from '../fsresize/loop-device.js';
import { chartControllerKubeConfig } from '../guest-csi-bridge/chart-controller-credentials.js';
import { createCsiClient } from '../guest-csi-bridge/csi-client.js';
import { harvesterGuestKubeConfig } from '../guest-csi-bridge/harvester-credentials.js';
import { stageHostBackups } from '../guest-csi-bridge/host-backup-scene.js';
import { useHostControlPlane } from '../guest-csi-bridge/host-control-plane.js';
import {
  GUEST_NAMESPACE,
  GUEST_NODE,
  stageHostScene,
  stageHostSnapshotClass,
} from '../guest-csi-bridge/host-scene.js';
import { installSnapshotCrds } from '../guest-csi-bridge/snapshot-crds.js';
import { HostStorageActor } from '../guest-csi-bridge/host-storage-actor.js';
import { serveHostWebhook } from '../guest-csi-bridge/serve-host-webhook.js';
import { eventually } from '../eventually.js';
import { VOE_MAIN } from '../run-voe.js';
import {
  startTestControlPlane,
  testCacheDir,
  TEST_START_TIMEOUT_MS,
} from '../use-control-plane.js';
import {
  chartGuestObjects,
  CONTROLLER_SIDECARS,
  processArgs,
  type ChartGuestObjects,
} from './chart-guest-objects.js';
import { KubeletActor } from './kubelet-actor.js';
import { logTail, startTool, superviseTool } from './tool-process.js';
import { unmountUnder } from './unmount-under.js';

/** The guest cluster's node: its name is its VM's name on the host. */
export const GUEST_NODE_NAME = GUEST_NODE;

/** The host ServiceAccount of the guest cluster, bound as Harvester binds one (never admin). */
export const GUEST_CLUSTER_ACCOUNT = 'guest-cluster-1';

/**
 * The kube-controller-manager controllers the volume flow needs (names of
 * cmd/kube-controller-manager/names): the PV binder and attach-detach controllers, the PVC
 * and PV protection controllers, which remove the finalizers the API server's
 * StorageObjectInUseProtection admission puts on every PVC and PV (without them nothing is ever
 * deleted), and the pod garbage collector, which force-deletes the terminating pods of a node
 * tainted out of service.
 */
export const KCM_CONTROLLERS = [
  'persistentvolume-binder-controller',
  'persistentvolume-attach-detach-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'pod-garbage-collector-controller',
];

export interface GuestCluster {
  readonly host: ControlPlane;
  readonly hostActor: HostStorageActor;
  readonly guest: ControlPlane;
  readonly kubelet: KubeletActor;
  /** The `voe csi` socket. */
  readonly socket: string;
  /**
   * The filesystem of mount volumes: ext4 (the chart's default) when this process has
   * CAP_SYS_RESOURCE, xfs otherwise (the kernel refuses to grow a mounted ext4 without it;
   * containers often drop it). The chart's StorageClass gets it as `csi.storage.k8s.io/fstype`.
   */
  readonly fsType: string;
  /** Stops `voe csi` (SIGTERM: running calls finish) and starts it again on the same socket. */
  restartCsi(): Promise<void>;
  /** Kills `voe csi` at once (SIGKILL) and starts it again. */
  killCsi(): Promise<void>;
  /** The tail of each program's log, for a failure's message. */
  logs(): Promise<string>;
}

/** What a test changes of the guest cluster. */
export interface GuestClusterOptions {
  /**
   * Starts the node plugin the node's kubelet actor registers, as the chart's node DaemonSet runs
   * one of its own beside the controller (e.g. an in-process driver whose Mounter mounts in the
   * lab VM), and resolves its socket. It gets the host kubeconfig `voe csi` has (Harvester's
   * generated guest-cluster kubeconfig, which the chart documents for the node plugin too). The
   * kubelet actor uses `voe csi`'s own node service otherwise.
   */
  nodePlugin?: (hostKubeConfig: KubeConfig) => Promise<string>;
}

interface Running {
  dir: string;
  guest: ControlPlane;
  hostActor: HostStorageActor;
  kubelet: KubeletActor;
  webhookStop: () => Promise<void>;
  processes: Map<string, ManagedProcess>;
  sidecars: Map<string, ReturnType<typeof superviseTool>>;
  socket: string;
  fsType: string;
  startCsi: () => Promise<void>;
}

/** A started guest cluster, stopped with `stop()`. */
export interface StartedGuestCluster extends GuestCluster {
  stop(): Promise<void>;
}

/**
 * A guest cluster on the host control plane `host`: the host scene (with Longhorn's snapshot and
 * backup classes and Harvester's backup CRDs), voe's webhook and the host storage actor on loop
 * devices (with the snapshot and remote backup actors); a second control plane as the guest's; `voe csi` on a unix
 * socket with the host kubeconfig Harvester generates for a guest cluster (not admin), the
 * chart's node-id flags and its node monitor (with the chart's controller ServiceAccount on the
 * guest); kube-controller-manager (the PV binder, attach-detach and pod GC controllers); the
 * chart's CSI sidecars; the kubelet actor (on `voe csi`'s node service, or the node plugin
 * `options` names). Needs root (loop devices, mounts)
 * and the guest tools built (scripts/build-guest-tools.mjs; built here otherwise). What was
 * started is stopped when a step fails.
 */
export async function startGuestClusterOn(
  host: ControlPlane,
  options: GuestClusterOptions = {},
): Promise<StartedGuestCluster> {
  const tools = await buildGuestTools({
    cacheDir: testCacheDir(),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  const helm = await useHelm();
  let chart: ChartGuestObjects;
  try {
    chart = await chartGuestObjects(helm);
  } finally {
    await helm.cleanup();
  }
  let running: Running | undefined;
  try {
    await startGuestCluster(host.kubeConfig, tools, chart, options, (r) => (running = r));
  } catch (error) {
    if (running) await stopGuestCluster(running).catch(() => undefined);
    throw error;
  }
  const r = running!;
  return {
    host,
    hostActor: r.hostActor,
    guest: r.guest,
    kubelet: r.kubelet,
    socket: r.socket,
    fsType: r.fsType,
    async restartCsi() {
      await r.processes.get('voe-csi')?.stop(30_000);
      await r.startCsi();
    },
    async killCsi() {
      await r.processes.get('voe-csi')?.stop(0);
      await r.startCsi();
    },
    async logs() {
      const parts: string[] = [];
      for (const [name, p] of r.processes) parts.push(`--- ${name}\n${await logTail(p)}`);
      for (const [name, p] of r.sidecars) parts.push(`--- ${name}\n${await logTail(p.current())}`);
      return parts.join('\n');
    },
    stop: () => stopGuestCluster(r),
  };
}

/**
 * A guest cluster (startGuestClusterOn) for the enclosing mocha `describe`, on a host control
 * plane of its own, started in a `before` hook and stopped before that control plane in an
 * `after` hook. Read its properties inside hooks and tests only.
 */
export function useGuestCluster(options: GuestClusterOptions = {}): GuestCluster {
  const host = useHostControlPlane();
  let started: StartedGuestCluster | undefined;
  const get = (): StartedGuestCluster => {
    if (!started)
      throw new Error('the guest cluster is not started yet (read it in a hook or test)');
    return started;
  };
  before(async function () {
    this.timeout(6 * TEST_START_TIMEOUT_MS);
    started = await startGuestClusterOn(host.cp, options);
  });
  host.beforeStop(async () => {
    await started?.stop();
    started = undefined;
  });
  return {
    get host() {
      return host.cp;
    },
    get hostActor() {
      return get().hostActor;
    },
    get guest() {
      return get().guest;
    },
    get kubelet() {
      return get().kubelet;
    },
    get socket() {
      return get().socket;
    },
    get fsType() {
      return get().fsType;
    },
    restartCsi: () => get().restartCsi(),
    killCsi: () => get().killCsi(),
    logs: () => get().logs(),
  };
}

async function startGuestCluster(
  hostKc: KubeConfig,
  tools: GuestToolPaths,
  chart: ChartGuestObjects,
  options: GuestClusterOptions,
  publish: (running: Running) => void,
): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'voe-guest-cluster-'));
  const byId = join(dir, 'by-id');
  const kubeletDir = join(dir, 'kubelet');
  await mkdir(kubeletDir, { recursive: true });
  await stageHostScene(hostKc);
  await stageHostSnapshotClass(hostKc);
  await stageHostBackups(hostKc);
  const hostKubeconfig = join(dir, 'host.kubeconfig');
  const guestClusterKc = await writeGuestClusterKubeconfig(hostKc, hostKubeconfig);
  const webhook = await serveHostWebhook(hostKc, 'voe-guest-e2e');
  const hostActor = new HostStorageActor({
    kubeConfig: hostKc,
    namespace: GUEST_NAMESPACE,
    deviceDirectory: byId,
    snapshots: true,
    remoteBackups: true,
  });
  const processes = new Map<string, ManagedProcess>();
  const sidecars = new Map<string, ReturnType<typeof superviseTool>>();
  const socket = join(dir, 'csi.sock');
  const guestKubeconfig = join(dir, 'guest-controller.kubeconfig');
  const running: Running = {
    dir,
    guest: undefined as unknown as ControlPlane,
    hostActor,
    kubelet: undefined as unknown as KubeletActor,
    webhookStop: () => webhook.serving.stop(),
    processes,
    sidecars,
    socket,
    fsType: (await hasCapSysResource()) ? 'ext4' : 'xfs',
    startCsi: async () => {
      await rm(socket, { force: true });
      processes.set(
        'voe-csi',
        startTool(dir, 'voe-csi', process.execPath, [
          VOE_MAIN,
          'csi',
          `--endpoint=unix://${socket}`,
          `--kubeconfig=${hostKubeconfig}`,
          // As the chart: no --node-id; the node name is the fallback of the MAC discovery.
          `--node-name=${GUEST_NODE}`,
          `--device-dir=${byId}`,
          // As the chart's controller: the node monitor, with the controller's guest account.
          '--node-monitor',
          `--guest-kubeconfig=${guestKubeconfig}`,
          '--log-level=debug',
        ]),
      );
      await waitForProbe(socket);
    },
  };
  publish(running);
  await hostActor.start();
  running.guest = await startTestControlPlane();
  const guestKc = running.guest.kubeConfig;
  // What the guest's distribution ships (RKE2 does): the snapshot CRDs and snapshot-controller.
  await installSnapshotCrds(guestKc);
  for (const object of chart.clusterObjects)
    await createObject(guestKc, withFsType(object, running.fsType));
  const controllerKc = await chartControllerKubeConfig(guestKc, chart.controllerAccess);
  await writeFile(guestKubeconfig, controllerKc.exportConfig(), { mode: 0o600 });
  await running.startCsi();
  running.kubelet = new KubeletActor({
    kubeConfig: guestKc,
    nodeName: GUEST_NODE,
    socket: options.nodePlugin ? await options.nodePlugin(guestClusterKc) : socket,
    kubeletDir,
  });
  await running.kubelet.start();
  const kubeconfig = running.guest.kubeconfigPath;
  processes.set(
    'kube-controller-manager',
    startTool(dir, 'kube-controller-manager', tools['kube-controller-manager'], [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${KCM_CONTROLLERS.join(',')}`,
      '--leader-elect=false',
      '--secure-port=0',
      '--v=2',
    ]),
  );
  processes.set(
    'snapshot-controller',
    startTool(dir, 'snapshot-controller', tools['snapshot-controller'], [
      `--kubeconfig=${kubeconfig}`,
      '--leader-election=false',
      '--v=2',
    ]),
  );
  for (const name of CONTROLLER_SIDECARS)
    sidecars.set(
      name,
      superviseTool(
        dir,
        name,
        tools[name],
        processArgs(chart.sidecarArgs[name], socket, kubeconfig),
      ),
    );
  return running;
}

/**
 * The host kubeconfig `voe csi` runs with, written to `file` (mode 0600) and returned: the one
 * Harvester generates for a guest cluster (a ServiceAccount in the guests' namespace bound only to
 * Harvester's two guest-cluster ClusterRoles), once its bindings are in force.
 */
async function writeGuestClusterKubeconfig(admin: KubeConfig, file: string): Promise<KubeConfig> {
  const kc = await harvesterGuestKubeConfig(admin, GUEST_NAMESPACE, GUEST_CLUSTER_ACCOUNT);
  const hostApi = createKubeHostApi(kc);
  await eventually(
    async () => (await hostApi.getVm(GUEST_NODE)) !== undefined,
    15_000,
    "Harvester's guest-cluster bindings in force",
  );
  await writeFile(file, kc.exportConfig(), { mode: 0o600 });
  return kc;
}

/** Waits until `voe csi` answers Probe on `socket`. */
async function waitForProbe(socket: string): Promise<void> {
  const client = createCsiClient(socket);
  try {
    await eventually(
      async () => {
        await client.call('Identity', 'Probe', {}, { timeoutMs: 2_000 });
        return true;
      },
      60_000,
      `voe csi to answer Probe on ${socket}`,
    );
  } finally {
    client.close();
  }
}

/** A StorageClass with `fsType` as its csi.storage.k8s.io/fstype parameter unless it is ext4 (the chart's); any other object as it is. */
function withFsType(object: Rendered, fsType: string): Rendered {
  if (object.kind !== 'StorageClass' || fsType === 'ext4') return object;
  const parameters = (object['parameters'] ?? {}) as Record<string, string>;
  return { ...object, parameters: { ...parameters, 'csi.storage.k8s.io/fstype': fsType } };
}

/** POSTs a rendered object to its collection. */
async function createObject(kc: KubeConfig, object: KubernetesObject): Promise<void> {
  const [group, version] = (object.apiVersion ?? 'v1').includes('/')
    ? object.apiVersion!.split('/')
    : ['', object.apiVersion ?? 'v1'];
  const kind = object.kind!.toLowerCase();
  const plural = kind.endsWith('s') ? `${kind}es` : `${kind}s`;
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  await requestJson(kc, { method: 'POST', path: `${base}/${plural}`, body: object });
}

/** Stops everything in the reverse order of its start; mounts and the work directory removed. */
async function stopGuestCluster(running: Running): Promise<void> {
  const errors: unknown[] = [];
  const attempt = async (step: () => Promise<unknown>): Promise<void> => {
    try {
      await step();
    } catch (error) {
      errors.push(error);
    }
  };
  for (const sidecar of running.sidecars.values()) await attempt(() => sidecar.stop(5_000));
  await attempt(async () => running.processes.get('snapshot-controller')?.stop(5_000));
  await attempt(async () => running.processes.get('kube-controller-manager')?.stop(5_000));
  if (running.kubelet) await attempt(() => running.kubelet.stop());
  await attempt(async () => running.processes.get('voe-csi')?.stop(10_000));
  await attempt(() => unmountUnder(running.dir));
  if (running.guest) await attempt(() => running.guest.stop());
  await attempt(() => running.hostActor.stop());
  await attempt(() => running.webhookStop());
  await attempt(() => rm(running.dir, { recursive: true, force: true }));
  if (errors.length > 0) throw new AggregateError(errors, 'stopping the guest cluster failed');
}
