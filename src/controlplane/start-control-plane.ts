import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectories } from '../files/index.js';
import { issueClientCertificate } from '../tls/index.js';
import { apiServerArgs, apiServerUrlOf, etcdArgs, etcdUrlOf } from './control-plane-args.js';
import { prepareControlPlaneDir } from './control-plane-dir.js';
import { ControlPlaneError } from './control-plane-error.js';
import type { ControlPlane } from './control-plane.js';
import { freePort } from './free-port.js';
import { writeKubeconfig } from './kubeconfig-file.js';
import { startProcess, type ManagedProcess } from './managed-process.js';
import { resolveBinaries, type ResolvedBinaries } from './resolve-binaries.js';
import { startTimeoutFromEnv } from './start-timeout-from-env.js';
import { tail, waitReady } from './wait-ready.js';
import { writePki, type Pki } from './write-pki.js';

export interface StartControlPlaneOptions {
  /** Working directory; a new temporary one (removed on stop) when omitted. */
  dir?: string;
  /** Cache for the Go-built binaries (default ~/.cache/voe, chosen by the caller). */
  cacheDir: string;
  /** Environment used for binary lookup (TEST_ASSET_*, KUBEBUILDER_ASSETS) and for `go`. */
  env: NodeJS.ProcessEnv;
  /** Per-process start timeout; default KUBEBUILDER_CONTROLPLANE_START_TIMEOUT from `env` (e.g. "120s"), else 60 s. */
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
  onProgress?: (line: string) => void;
  /** Start the processes detached so they outlive this process (`voe cluster start`). */
  detached?: boolean;
  /** Extra kube-apiserver flags. */
  apiServerArgs?: string[];
  /** Picks each loopback port (default: one the kernel reports free); tests use it to hand out a taken one. */
  choosePort?: () => Promise<number>;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports (envtest's flags), with client-certificate
 * authentication and RBAC, and writes an admin kubeconfig to `<dir>/kubeconfig`. In steps: the
 * directory (prepareControlPlaneDir), the binaries, the PKI, both processes on fresh ports
 * (startOnFreePorts), the kubeconfig, then the handle (controlPlaneHandle).
 */
export async function startControlPlane(options: StartControlPlaneOptions): Promise<ControlPlane> {
  const { dir, removeOwnDir } = await prepareControlPlaneDir(options.dir, options.onProgress);
  const binaries: ResolvedBinaries = await resolveBinaries({
    cacheDir: options.cacheDir,
    env: options.env,
    onProgress: options.onProgress,
  });
  if (binaries.etcdSource === 'debian')
    options.onProgress?.(
      `voe: using Debian's etcd-server (${binaries.etcd}) because the etcd build failed`,
    );
  const pkiDir = join(dir, 'pki');
  const launch: Launch = {
    dir,
    pkiDir,
    binaries,
    pki: await writePki(pkiDir),
    childEnv: { PATH: options.env.PATH ?? '/usr/bin:/bin', HOME: options.env.HOME ?? dir },
    detached: options.detached,
    startTimeoutMs: options.startTimeoutMs ?? startTimeoutFromEnv(options.env) ?? 60_000,
  };
  let started: Started;
  try {
    started = await startOnFreePorts(launch, options);
  } catch (error) {
    await removeOwnDir();
    throw error;
  }
  const kubeconfigPath = join(dir, 'kubeconfig');
  const kubeConfig = await writeKubeconfig(kubeconfigPath, {
    server: started.apiServerUrl,
    caPem: launch.pki.servingCa.certificatePem,
    certPem: launch.pki.admin.cert,
    keyPem: launch.pki.admin.key,
    user: 'voe-admin',
  });
  await makeDirectories(join(dir, 'users'));
  return controlPlaneHandle(launch, started, {
    kubeconfigPath,
    kubeConfig,
    removeOwnDir,
    stopTimeoutMs: options.stopTimeoutMs ?? 20_000,
  });
}

/** Tries on fresh ports when another process binds a chosen port first (the ports are released before etcd and kube-apiserver bind them). */
const PORT_ATTEMPTS = 3;

/** What starting either process needs. */
interface Launch {
  dir: string;
  pkiDir: string;
  binaries: ResolvedBinaries;
  pki: Pki;
  childEnv: NodeJS.ProcessEnv;
  detached: boolean | undefined;
  /** Per process. */
  startTimeoutMs: number;
}

/** etcd and kube-apiserver, started and ready. */
interface Started {
  etcd: ManagedProcess;
  apiServer: ManagedProcess;
  etcdUrl: string;
  apiServerUrl: string;
  apiArgs: string[];
}

/**
 * Starts both processes, again on new ports (up to PORT_ATTEMPTS tries) when a chosen port was
 * taken by another process before one of them could bind it.
 */
async function startOnFreePorts(
  launch: Launch,
  options: Pick<StartControlPlaneOptions, 'choosePort' | 'apiServerArgs' | 'onProgress'>,
): Promise<Started> {
  const choosePort = options.choosePort ?? freePort;
  for (let tries = 1; ; tries += 1) {
    try {
      return await startOnce(launch, choosePort, options.apiServerArgs ?? []);
    } catch (error) {
      const portTaken =
        error instanceof ControlPlaneError &&
        error.code === 'CONTROLPLANE_PROCESS_EXITED' &&
        /address already in use/i.test(error.message);
      if (!portTaken || tries >= PORT_ATTEMPTS) throw error;
      options.onProgress?.(
        `voe: a port chosen for the control plane was taken by another process before it could bind it; retrying on new ports (${tries} of ${PORT_ATTEMPTS})`,
      );
      // A fresh etcd member on new ports must not find the data of the failed one.
      await rm(join(launch.dir, 'etcd'), { recursive: true, force: true });
    }
  }
}

/**
 * One try on freshly chosen ports: etcd, then kube-apiserver, each until ready; what started is
 * stopped when the try fails. The ports are free when chosen, but another process may bind them
 * before etcd or kube-apiserver does.
 */
async function startOnce(
  launch: Launch,
  choosePort: () => Promise<number>,
  extraApiArgs: readonly string[],
): Promise<Started> {
  const [etcdClientPort, etcdPeerPort, apiPort] = [
    await choosePort(),
    await choosePort(),
    await choosePort(),
  ];
  const etcdUrl = etcdUrlOf(etcdClientPort);
  const apiServerUrl = apiServerUrlOf(apiPort);
  const apiArgs = apiServerArgs(launch.pkiDir, apiPort, etcdUrl, extraApiArgs);
  let etcd: ManagedProcess | undefined;
  let apiServer: ManagedProcess | undefined;
  try {
    etcd = await launchEtcd(launch, etcdArgs(launch.dir, etcdClientPort, etcdPeerPort), etcdUrl);
    const api = await launchApiServer(launch, apiArgs, apiServerUrl, (started) => {
      apiServer = started;
    });
    // The etcd that answered /health must be ours: had another process taken our client port,
    // our etcd would have failed to bind and exited long before kube-apiserver became ready.
    if (!etcd.isRunning()) {
      throw new ControlPlaneError(
        'CONTROLPLANE_PROCESS_EXITED',
        `etcd exited while kube-apiserver started; last log lines (${etcd.logFile}):\n${await tail(etcd.logFile)}`,
      );
    }
    return { etcd, apiServer: api, etcdUrl, apiServerUrl, apiArgs };
  } catch (error) {
    await apiServer?.stop(1000);
    await etcd?.stop(1000);
    throw error;
  }
}

/** Starts etcd (its pid in DIR/etcd.pid) and waits until /health is 200; a failed wait stops it. */
async function launchEtcd(
  launch: Launch,
  args: string[],
  etcdUrl: string,
): Promise<ManagedProcess> {
  const etcd = startProcess({
    name: 'etcd',
    command: launch.binaries.etcd,
    args,
    logFile: join(launch.dir, 'etcd.log'),
    env: launch.childEnv,
    detached: launch.detached,
  });
  await writeFile(join(launch.dir, 'etcd.pid'), `${etcd.pid}\n`);
  await waitReady(etcd, `${etcdUrl}/health`, undefined, launch.startTimeoutMs);
  return etcd;
}

/** Starts kube-apiserver (`onStarted` gets it before the wait, so a failed wait can still stop it) and waits until /readyz is 200. */
async function launchApiServer(
  launch: Launch,
  apiArgs: string[],
  apiServerUrl: string,
  onStarted: (server: ManagedProcess) => void,
): Promise<ManagedProcess> {
  const apiServer = startProcess({
    name: 'kube-apiserver',
    command: launch.binaries.kubeApiServer,
    args: apiArgs,
    logFile: join(launch.dir, 'kube-apiserver.log'),
    env: launch.childEnv,
    detached: launch.detached,
  });
  onStarted(apiServer);
  await writeFile(join(launch.dir, 'kube-apiserver.pid'), `${apiServer.pid}\n`);
  await waitReady(apiServer, `${apiServerUrl}/readyz`, launch.pki.admin, launch.startTimeoutMs);
  return apiServer;
}

/** The running control plane: its kubeconfigs, and stopping and starting kube-apiserver again. */
function controlPlaneHandle(
  launch: Launch,
  started: Started,
  more: Pick<ControlPlane, 'kubeconfigPath' | 'kubeConfig'> & {
    removeOwnDir: () => Promise<void>;
    stopTimeoutMs: number;
  },
): ControlPlane {
  const { dir, pki } = launch;
  const { etcd, etcdUrl, apiServerUrl, apiArgs } = started;
  const { stopTimeoutMs } = more;
  let apiServer = started.apiServer;
  let stopped = false;
  return {
    dir,
    kubeconfigPath: more.kubeconfigPath,
    kubeConfig: more.kubeConfig,
    apiServerUrl,
    etcdUrl,
    async mintKubeConfig(user, groups = []) {
      const pair = await issueClientCertificate(pki.clientCa, { user, groups });
      const safe = user.replace(/[^A-Za-z0-9_.-]/g, '_');
      const path = join(dir, 'users', `${safe}.kubeconfig`);
      const kc = await writeKubeconfig(path, {
        server: apiServerUrl,
        caPem: pki.servingCa.certificatePem,
        certPem: pair.certificatePem,
        keyPem: pair.keyPem,
        user,
      });
      return { kubeConfig: kc, path };
    },
    async stopApiServer() {
      await apiServer.stop(stopTimeoutMs);
    },
    async startApiServer() {
      if (stopped)
        throw new ControlPlaneError(
          'CONTROLPLANE_NOT_RUNNING',
          'this control plane was stopped; start a new one',
        );
      if (apiServer.isRunning()) return;
      await launchApiServer(launch, apiArgs, apiServerUrl, (restarted) => {
        apiServer = restarted;
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await apiServer.stop(stopTimeoutMs);
      await etcd.stop(stopTimeoutMs);
      await more.removeOwnDir();
    },
  };
}
