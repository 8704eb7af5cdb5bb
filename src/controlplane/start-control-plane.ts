import { makeDirectories } from '../files/index.js';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ControlPlaneError } from './control-plane-error.js';
import { ensureNoEarlierProcesses } from './ensure-no-earlier-processes.js';
import { parseGoDuration } from './parse-go-duration.js';
import type { ControlPlane } from './control-plane.js';
import { freePort } from './free-port.js';
import { makeOwnedTempDir } from './make-owned-temp-dir.js';
import { removeAbandonedControlPlanes } from './remove-abandoned-control-planes.js';
import { probe, type TlsClient } from './http-probe.js';
import { writeKubeconfig } from './kubeconfig-file.js';
import { removeDirAtExit } from '../exit/index.js';
import { startProcess, type ManagedProcess } from './managed-process.js';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  writePrivateFile,
  type CertificateAuthority,
} from '../tls/index.js';
import { resolveBinaries, type ResolvedBinaries } from './resolve-binaries.js';
import { waitUntil } from './wait-until.js';

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

/** Tries on fresh ports when another process binds a chosen port first (the ports are released before etcd and kube-apiserver bind them). */
const PORT_ATTEMPTS = 3;

async function tail(file: string, lines = 25): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function waitReady(
  proc: ManagedProcess,
  url: string,
  tls: TlsClient | undefined,
  timeoutMs: number,
): Promise<void> {
  let exitNote: string | undefined;
  void proc.exited.then(({ code, signal }) => {
    exitNote = `exited (code ${code}, signal ${signal})`;
  });
  const result = await waitUntil(async () => (await probe(url, tls)) === 200, {
    timeoutMs,
    intervalMs: 200,
    abort: () => exitNote,
  });
  if (result === 'ok') return;
  const code = result === 'timeout' ? 'CONTROLPLANE_START_TIMEOUT' : 'CONTROLPLANE_PROCESS_EXITED';
  const what =
    result === 'timeout' ? `did not become ready at ${url} within ${timeoutMs} ms` : result;
  await proc.stop(1000);
  throw new ControlPlaneError(
    code,
    `${proc.name} ${what}; last log lines (${proc.logFile}):\n${await tail(proc.logFile)}`,
  );
}

interface Pki {
  clientCa: CertificateAuthority;
  servingCa: CertificateAuthority;
  admin: TlsClient;
}

async function writePki(pkiDir: string): Promise<Pki> {
  await makeDirectories(pkiDir, 0o700);
  const [clientCa, servingCa] = await Promise.all([
    createCertificateAuthority('voe-client-ca'),
    createCertificateAuthority('voe-serving-ca'),
  ]);
  const serving = await issueServingCertificate(servingCa, { hosts: ['127.0.0.1', 'localhost'] });
  const admin = await issueClientCertificate(clientCa, {
    user: 'voe-admin',
    groups: ['system:masters'],
  });
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await Promise.all([
    writeFile(join(pkiDir, 'client-ca.crt'), clientCa.certificatePem),
    writePrivateFile(join(pkiDir, 'client-ca.key'), clientCa.keyPem),
    writeFile(join(pkiDir, 'serving-ca.crt'), servingCa.certificatePem),
    writeFile(join(pkiDir, 'apiserver.crt'), serving.certificatePem),
    writePrivateFile(join(pkiDir, 'apiserver.key'), serving.keyPem),
    writePrivateFile(
      join(pkiDir, 'sa.key'),
      sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ),
    writeFile(
      join(pkiDir, 'sa.pub'),
      sa.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    ),
  ]);
  return {
    clientCa,
    servingCa,
    admin: { ca: servingCa.certificatePem, cert: admin.certificatePem, key: admin.keyPem },
  };
}

/**
 * KUBEBUILDER_CONTROLPLANE_START_TIMEOUT in ms: a Go duration as envtest reads it ("90s", "2m",
 * "1m30s"), or a plain number of seconds; undefined (the default) when unset, empty or zero, as
 * envtest keeps its default for a zero duration. Anything else is CONTROLPLANE_START_FAILED (not
 * silently the default).
 */
export function startTimeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env['KUBEBUILDER_CONTROLPLANE_START_TIMEOUT']?.trim();
  if (!raw) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : parseGoDuration(raw);
  if (ms === 0) return undefined;
  if (ms === undefined || !(ms > 0)) {
    throw new ControlPlaneError(
      'CONTROLPLANE_START_FAILED',
      `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT=${JSON.stringify(raw.slice(0, 40))} is not a duration; give one as Go writes it (90s, 2m, 1m30s) or a number of seconds`,
    );
  }
  return ms;
}

/**
 * Starts etcd and kube-apiserver on free loopback ports (envtest's flags), with client-certificate
 * authentication and RBAC, and writes an admin kubeconfig to `<dir>/kubeconfig`.
 */
export async function startControlPlane(options: StartControlPlaneOptions): Promise<ControlPlane> {
  const startTimeoutMs = options.startTimeoutMs ?? startTimeoutFromEnv(options.env) ?? 60_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 20_000;
  const ownDir = options.dir === undefined;
  // Absolute, so that the processes' command lines name it as `voe cluster stop` and the check below look for it.
  // A control plane in a temporary directory of its own: first remove those whose owner was killed
  // with SIGKILL (their etcd and kube-apiserver run on, and nothing else would ever find them).
  if (ownDir) {
    for (const removed of await removeAbandonedControlPlanes())
      options.onProgress?.(
        `voe: removed ${removed} and stopped its etcd and kube-apiserver: its owner was killed`,
      );
  }
  const dir = options.dir === undefined ? await makeOwnedTempDir() : resolve(options.dir);
  // Before anything in DIR changes: never overwrite the pid files (or certificates) of an earlier
  // control plane's etcd or kube-apiserver that still runs there (its supervisor was killed).
  if (!ownDir) await ensureNoEarlierProcesses(dir);
  const forgetDirAtExit = ownDir ? removeDirAtExit(dir) : () => undefined;
  const removeOwnDir = async (): Promise<void> => {
    if (!ownDir) return;
    await rm(dir, { recursive: true, force: true });
    forgetDirAtExit();
  };
  await makeDirectories(dir);
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
  const pki = await writePki(pkiDir);

  const choosePort = options.choosePort ?? freePort;
  const childEnv: NodeJS.ProcessEnv = {
    PATH: options.env.PATH ?? '/usr/bin:/bin',
    HOME: options.env.HOME ?? dir,
  };

  /** Starts kube-apiserver (`onStarted` gets it before the wait, so a failed wait can still stop it) and waits until /readyz is 200. */
  const launchApiServer = async (
    apiArgs: string[],
    apiServerUrl: string,
    onStarted: (server: ManagedProcess) => void,
  ): Promise<ManagedProcess> => {
    const apiServer = startProcess({
      name: 'kube-apiserver',
      command: binaries.kubeApiServer,
      args: apiArgs,
      logFile: join(dir, 'kube-apiserver.log'),
      env: childEnv,
      detached: options.detached,
    });
    onStarted(apiServer);
    await writeFile(join(dir, 'kube-apiserver.pid'), `${apiServer.pid}\n`);
    await waitReady(apiServer, `${apiServerUrl}/readyz`, pki.admin, startTimeoutMs);
    return apiServer;
  };

  /** One try on freshly chosen ports; the ports are free when chosen, but another process may bind them before etcd or kube-apiserver does. */
  const attempt = async (): Promise<{
    etcd: ManagedProcess;
    apiServer: ManagedProcess;
    etcdUrl: string;
    apiServerUrl: string;
    apiArgs: string[];
  }> => {
    const [etcdClientPort, etcdPeerPort, apiPort] = [
      await choosePort(),
      await choosePort(),
      await choosePort(),
    ];
    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const apiServerUrl = `https://127.0.0.1:${apiPort}`;
    const etcdArgs = [
      `--name=voe-etcd`,
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
      `--initial-cluster=voe-etcd=http://127.0.0.1:${etcdPeerPort}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      '--unsafe-no-fsync=true',
    ];
    const apiArgs = [
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      `--cert-dir=${pkiDir}`,
      `--tls-cert-file=${join(pkiDir, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(pkiDir, 'apiserver.key')}`,
      '--authorization-mode=RBAC',
      `--secure-port=${apiPort}`,
      '--bind-address=127.0.0.1',
      `--service-account-issuer=${apiServerUrl}/`,
      `--service-account-key-file=${join(pkiDir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(pkiDir, 'sa.key')}`,
      `--etcd-servers=${etcdUrl}`,
      `--client-ca-file=${join(pkiDir, 'client-ca.crt')}`,
      '--enable-priority-and-fairness=false',
      ...(options.apiServerArgs ?? []),
    ];
    let etcd: ManagedProcess | undefined;
    let apiServer: ManagedProcess | undefined;
    try {
      etcd = startProcess({
        name: 'etcd',
        command: binaries.etcd,
        args: etcdArgs,
        logFile: join(dir, 'etcd.log'),
        env: childEnv,
        detached: options.detached,
      });
      await writeFile(join(dir, 'etcd.pid'), `${etcd.pid}\n`);
      await waitReady(etcd, `${etcdUrl}/health`, undefined, startTimeoutMs);
      const api = await launchApiServer(apiArgs, apiServerUrl, (started) => {
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
  };

  let started: Awaited<ReturnType<typeof attempt>>;
  try {
    for (let tries = 1; ; tries += 1) {
      try {
        started = await attempt();
        break;
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
        await rm(join(dir, 'etcd'), { recursive: true, force: true });
      }
    }
  } catch (error) {
    await removeOwnDir();
    throw error;
  }
  const { etcd, etcdUrl, apiServerUrl, apiArgs } = started;
  let apiServer: ManagedProcess = started.apiServer;

  const kubeconfigPath = join(dir, 'kubeconfig');
  const kubeConfig = await writeKubeconfig(kubeconfigPath, {
    server: apiServerUrl,
    caPem: pki.servingCa.certificatePem,
    certPem: pki.admin.cert,
    keyPem: pki.admin.key,
    user: 'voe-admin',
  });
  await makeDirectories(join(dir, 'users'));
  let stopped = false;

  return {
    dir,
    kubeconfigPath,
    kubeConfig,
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
      await launchApiServer(apiArgs, apiServerUrl, (restarted) => {
        apiServer = restarted;
      });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await apiServer.stop(stopTimeoutMs);
      await etcd.stop(stopTimeoutMs);
      await removeOwnDir();
    },
  };
}
