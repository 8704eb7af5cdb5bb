import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import {
  installCrds,
  killManagedProcesses,
  type ControlPlane,
  lockControlPlaneDir,
  readPidFile,
  resolveBinaries,
  runsIn,
  startControlPlane,
  ControlPlaneError,
  KUBERNETES_VERSION,
} from '../../controlplane/index.js';
import { processAlive } from '../../lock/index.js';
import { waitUntil } from '../../wait/index.js';
import { killAndWait } from '../kill-and-wait.js';
import { stopStartingSupervisor } from '../stop-starting-supervisor.js';
import {
  stopExitCode,
  watchStopRequests,
  type StopReason,
  type StopRequests,
} from '../stop-requests.js';
import { defaultCacheDir } from '../cache-dir.js';
import { lastErrorLine } from '../last-error-line.js';
import { parseWaitSeconds } from '../parse-wait-seconds.js';
import { shellQuote } from '../../shell/index.js';

const progress = (line: string) => process.stderr.write(`${line}\n`);
const READY = 'ready';
const FAILED = 'failed';
const PID = 'voe-cluster.pid';

/** What `file` holds from byte `offset` on ("" when it cannot be read). */
async function readFrom(file: string, offset: number): Promise<string> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Stops DIR's supervisor, and what a crashed one left, by their pid files (then removed); how many processes it stopped. */
async function stopInDir(dir: string): Promise<number> {
  const supervisor = await readPidFile(join(dir, PID));
  let stopped = 0;
  if (supervisor && (await runsIn(supervisor, dir))) {
    await killAndWait(supervisor, 30_000);
    stopped += 1;
  }
  // A supervisor that crashed may have left its children: stop them by their pid files.
  for (const name of ['kube-apiserver.pid', 'etcd.pid']) {
    const pid = await readPidFile(join(dir, name));
    if (pid && (await runsIn(pid, dir))) {
      await killAndWait(pid, 20_000);
      stopped += 1;
    }
    await rm(join(dir, name), { force: true });
  }
  await rm(join(dir, PID), { force: true });
  await rm(join(dir, READY), { force: true });
  return stopped;
}

/**
 * Waits until the supervisor `pid` that `start` spawned for DIR is ready (then prints where), has
 * failed or exited (a coded error), the timeout passes (it is then stopped) or a stop is requested
 * (it is stopped, and this process ends as the signal would).
 */
async function waitUntilReady(
  dir: string,
  pid: number | undefined,
  log: SupervisorLog,
  timeout: number,
  stops: StopRequests,
): Promise<void> {
  const outcome = await waitUntil(
    async () => {
      const reason = stops.reason();
      if (reason) await stopStartingAndExit(dir, pid, reason);
      const ready = await readyUrl(dir, pid);
      if (ready !== undefined) {
        process.stdout.write(
          `control plane ready at ${ready}\nexport KUBECONFIG=${shellQuote(join(dir, 'kubeconfig'))}\n`,
        );
        return true;
      }
      await throwIfSupervisorFailed(dir, pid, log);
      return false;
    },
    { timeoutMs: timeout * 1000, intervalMs: 200 },
  );
  if (outcome === 'timeout') {
    await stopStartingSupervisor(dir, pid);
    throw new ControlPlaneError(
      'CONTROLPLANE_START_TIMEOUT',
      `the control plane was not ready within ${timeout} s (see ${log.file})`,
    );
  }
}

/** Where a supervisor's log is, and from which byte on it is ours (another one may write there too). */
interface SupervisorLog {
  file: string;
  start: number;
}

/** Stops the supervisor that was starting and what it started, then ends as the signal would. */
async function stopStartingAndExit(
  dir: string,
  pid: number | undefined,
  reason: StopReason,
): Promise<never> {
  process.stderr.write(`voe: stopping the control plane that was starting in ${dir}\n`);
  await stopStartingSupervisor(dir, pid);
  process.stderr.write(`voe: stopped; nothing of it runs (its logs stay in ${dir})\n`);
  process.exit(stopExitCode(reason));
}

/** The API server's URL once our supervisor is ready: DIR/ready, when it wrote it (it writes its pid file first), not another one. */
async function readyUrl(dir: string, pid: number | undefined): Promise<string | undefined> {
  const ready = await readFile(join(dir, READY), 'utf8').catch(() => undefined);
  if (ready && pid !== undefined && (await readPidFile(join(dir, PID))) === pid)
    return ready.trim();
  return undefined;
}

/**
 * Throws when the supervisor wrote DIR/failed or exited: CONTROLPLANE_START_FAILED with why (a
 * supervisor that exits says why on its last "voe: CODE: message" line in the log), or its own
 * CONTROLPLANE_ALREADY_RUNNING.
 */
async function throwIfSupervisorFailed(
  dir: string,
  pid: number | undefined,
  log: SupervisorLog,
): Promise<void> {
  const failed = await readFile(join(dir, FAILED), 'utf8').catch(() => undefined);
  const exited = pid === undefined || !processAlive(pid);
  if (!failed && !exited) return;
  const said = exited ? lastErrorLine(await readFrom(log.file, log.start)) : undefined;
  if (said?.code === 'CONTROLPLANE_ALREADY_RUNNING')
    throw new ControlPlaneError(said.code, said.message);
  const why =
    failed?.trim() ||
    (said
      ? `its supervisor exited: ${said.code}: ${said.message}`
      : 'its supervisor exited without saying why');
  throw new ControlPlaneError(
    'CONTROLPLANE_START_FAILED',
    `the control plane did not start: ${why} (see ${log.file})`,
  );
}

/** Foreground: start, install CRDs, mark ready, stop cleanly on SIGINT/SIGTERM. One supervisor per directory. */
async function runForeground(dir: string, cacheDir: string, crds: boolean): Promise<void> {
  // The lock creates DIR; one that cannot be created is CONTROLPLANE_START_FAILED naming the errno.
  // Held for the supervisor's life: a second `run` or `start` on the directory must not rewrite the
  // certificates or pid files of the running control plane (or race with it while both start).
  const releaseDir = await lockControlPlaneDir(dir);
  // SIGINT, SIGTERM, SIGHUP: once the control plane is up, a graceful stop; during start-up, or
  // again while stopping, every process is killed at once (never an orphaned etcd).
  const stops = watchStopRequests(process, stopAtOnce);
  try {
    await superviseControlPlane(dir, cacheDir, crds, stops);
  } finally {
    stops.dispose();
    await releaseDir();
  }
}

function stopAtOnce(reason: StopReason): never {
  killManagedProcesses();
  process.exit(stopExitCode(reason));
}

/** Supervises DIR's control plane: starts it (startSupervised), says it is ready, then stops it when asked (stopSupervised). */
async function superviseControlPlane(
  dir: string,
  cacheDir: string,
  crds: boolean,
  stops: StopRequests,
): Promise<void> {
  const cp = await startSupervised(dir, cacheDir, crds, stops);
  if (stops.reason()) stopAtOnce(stops.reason()!);
  await writeFile(join(dir, PID), `${process.pid}\n`);
  await writeFile(join(dir, READY), `${cp.apiServerUrl}\n`);
  progress(
    `voe: control plane ${KUBERNETES_VERSION} ready at ${cp.apiServerUrl}; kubeconfig ${cp.kubeconfigPath}`,
  );
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const reason = await stops.requested;
  clearInterval(keepAlive);
  await stopSupervised(dir, cp, reason);
}

/**
 * Starts the control plane and installs the CRDs. A stop requested meanwhile kills what started
 * (startControlPlane cannot be interrupted half-way); a failure stops what started and is written
 * to DIR/failed for `start` to read.
 */
async function startSupervised(
  dir: string,
  cacheDir: string,
  crds: boolean,
  stops: StopRequests,
): Promise<ControlPlane> {
  await rm(join(dir, READY), { force: true });
  await rm(join(dir, FAILED), { force: true });
  let cp: ControlPlane | undefined;
  void stops.requested.then((reason) => {
    if (!cp) stopAtOnce(reason);
  });
  try {
    cp = await startControlPlane({ dir, cacheDir, env: process.env, onProgress: progress });
    if (crds) await installCrds(cp.kubeConfig);
    return cp;
  } catch (error) {
    await cp?.stop();
    await writeFile(join(dir, FAILED), `${(error as Error).message}\n`);
    throw error;
  }
}

/** Stops the control plane, removes its ready and pid files, and exits as the stop request says (an error is printed first). */
async function stopSupervised(dir: string, cp: ControlPlane, reason: StopReason): Promise<void> {
  await rm(join(dir, READY), { force: true });
  await cp.stop();
  for (const file of [PID, 'etcd.pid', 'kube-apiserver.pid'])
    await rm(join(dir, file), { force: true });
  if (reason.kind === 'error') {
    process.stderr.write(
      `voe: ${reason.origin}: ${reason.error instanceof Error ? (reason.error.stack ?? reason.error.message) : String(reason.error)}\n`,
    );
  }
  process.exitCode = stopExitCode(reason);
}

export function register(program: Command): void {
  const cluster = program
    .command('cluster')
    .description(
      `a local Kubernetes control plane (kube-apiserver ${KUBERNETES_VERSION} + etcd built from Go modules) for trying voe and for tests`,
    );

  cluster
    .command('build')
    .description(
      'build (or find) kube-apiserver and etcd; honours TEST_ASSET_KUBE_APISERVER, TEST_ASSET_ETCD and KUBEBUILDER_ASSETS',
    )
    .option('--cache-dir <dir>', 'build cache (default $VOE_CACHE_DIR or ~/.cache/voe)')
    .action(buildCommand);

  cluster
    .command('run')
    .description(
      'run the control plane in the foreground until interrupted (Ctrl-C stops everything)',
    )
    .requiredOption('--dir <dir>', 'working directory (kubeconfig, certificates, etcd data, logs)')
    .option('--cache-dir <dir>', 'build cache (default $VOE_CACHE_DIR or ~/.cache/voe)')
    .option('--no-crds', 'do not install the KubeVirt, Harvester, Longhorn, CDI and voe CRDs')
    .action(async (opts: { dir: string; cacheDir?: string; crds: boolean }) => {
      await runForeground(resolve(opts.dir), opts.cacheDir ?? defaultCacheDir(), opts.crds);
    });

  cluster
    .command('start')
    .description(
      'start the control plane in the background and write DIR/kubeconfig; interrupted (Ctrl-C) or timed out while it starts, it stops what it started',
    )
    .requiredOption('--dir <dir>', 'working directory (kubeconfig, certificates, etcd data, logs)')
    .option('--cache-dir <dir>', 'build cache (default $VOE_CACHE_DIR or ~/.cache/voe)')
    .option('--no-crds', 'do not install the KubeVirt, Harvester, Longhorn, CDI and voe CRDs')
    .option(
      '--timeout <seconds>',
      'how long to wait for it to be ready (then it is stopped)',
      parseWaitSeconds,
      120,
    )
    .action(startCommand);
  cluster
    .command('stop')
    .description(
      'stop the control plane started with `voe cluster start --dir DIR` (no process is left behind)',
    )
    .requiredOption('--dir <dir>', 'the directory given to start')
    .action(stopCommand);
}

/** `voe cluster build`: builds or finds the binaries, and says which. */
async function buildCommand(opts: { cacheDir?: string }): Promise<void> {
  const bins = await resolveBinaries({
    cacheDir: opts.cacheDir ?? defaultCacheDir(),
    env: process.env,
    onProgress: progress,
  });
  process.stdout.write(
    `kube-apiserver ${bins.kubeApiServer}\netcd ${bins.etcd} (${bins.etcdSource})\n`,
  );
}

/**
 * `voe cluster start`: refuses a directory whose supervisor runs, clears what an earlier one
 * left, builds in the foreground (so the progress lines reach the terminal), spawns the
 * supervisor (`voe cluster run`) in the background, then waits until it is ready.
 */
async function startCommand(opts: {
  dir: string;
  cacheDir?: string;
  crds: boolean;
  timeout: number;
}): Promise<void> {
  const dir = resolve(opts.dir);
  const cacheDir = opts.cacheDir ?? defaultCacheDir();
  await refuseRunningSupervisor(dir, opts.dir);
  await clearStartMarkers(dir);
  await resolveBinaries({ cacheDir, env: process.env, onProgress: progress });
  const { pid, log } = spawnSupervisor(dir, cacheDir, opts.crds);
  // Ctrl-C (or SIGTERM, SIGHUP) while it starts: the supervisor runs in a session of its own and
  // would come up in the background all the same; stop it and what it started, then end as the
  // signal would. A second request while doing so ends at once.
  const stops = watchStopRequests(process, (reason) => process.exit(stopExitCode(reason)));
  try {
    await waitUntilReady(dir, pid, log, Number(opts.timeout), stops);
  } finally {
    stops.dispose();
  }
}

/** CONTROLPLANE_ALREADY_RUNNING when this directory's supervisor runs (a stale pid file may name a pid reused since: only a process running in DIR counts). */
async function refuseRunningSupervisor(dir: string, given: string): Promise<void> {
  const running = await readPidFile(join(dir, PID));
  if (running && (await runsIn(running, dir))) {
    throw new ControlPlaneError(
      'CONTROLPLANE_ALREADY_RUNNING',
      `a control plane already runs for ${dir} (pid ${running}); use 'voe cluster stop --dir ${given}' first`,
    );
  }
}

/**
 * Removes the ready and failed files an earlier supervisor left, under the directory's lock. One
 * still starting has no pid file yet, but holds the lock, and the etcd and kube-apiserver a
 * killed supervisor left have their pid files: refused before anything in DIR changes.
 */
async function clearStartMarkers(dir: string): Promise<void> {
  const releaseDir = await lockControlPlaneDir(dir);
  try {
    // Under the lock, when no supervisor holds it: never the ready or failed file of one that
    // runs (another `start` at the same time, whose supervisor took the lock since).
    await rm(join(dir, READY), { force: true });
    await rm(join(dir, FAILED), { force: true });
  } finally {
    await releaseDir();
  }
}

/**
 * Spawns `voe cluster run` for DIR, detached, its output appended to DIR/voe-cluster.log. The
 * lock is free again until the supervisor takes it: another `start` may slip in between, and then
 * one of the two supervisors finds the lock held and exits saying so.
 */
function spawnSupervisor(
  dir: string,
  cacheDir: string,
  crds: boolean,
): { pid: number | undefined; log: SupervisorLog } {
  const main = fileURLToPath(new URL('../main.js', import.meta.url));
  const args = [
    main,
    'cluster',
    'run',
    '--dir',
    dir,
    '--cache-dir',
    cacheDir,
    ...(crds ? [] : ['--no-crds']),
  ];
  const file = join(dir, 'voe-cluster.log');
  const fd = openSync(file, 'a');
  // What our supervisor writes comes after this offset (another one may write there too).
  const start = fstatSync(fd).size;
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: process.env,
  });
  closeSync(fd);
  child.unref();
  return { pid: child.pid, log: { file, start } };
}

/** `voe cluster stop`: stops DIR's supervisor and what it started; a DIR that is not there has nothing to stop. */
async function stopCommand(opts: { dir: string }): Promise<void> {
  const dir = resolve(opts.dir);
  const what = await stat(dir).then(
    (info) => (info.isDirectory() ? 'directory' : 'ENOTDIR'),
    (error: NodeJS.ErrnoException) => error.code ?? 'error',
  );
  if (what === 'ENOTDIR') {
    throw new ControlPlaneError(
      'CONTROLPLANE_STOP_FAILED',
      `cannot stop a control plane in ${dir}: it is not a directory (ENOTDIR); pass the --dir given to 'voe cluster start'`,
    );
  }
  if (what !== 'directory' && what !== 'ENOENT')
    throw new ControlPlaneError(
      'CONTROLPLANE_STOP_FAILED',
      `cannot stop a control plane in ${dir}: it cannot be read (${what})`,
    );
  let stopped = 0;
  try {
    if (what === 'directory') stopped = await stopInDir(dir);
  } catch (error) {
    // Its pid files cannot be removed (EACCES, EROFS) or a process named there cannot be signalled (EPERM).
    throw new ControlPlaneError(
      'CONTROLPLANE_STOP_FAILED',
      `stopping the control plane in ${dir} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  process.stdout.write(
    stopped > 0
      ? `control plane in ${dir} stopped\n`
      : `no control plane runs in ${dir}; nothing to stop\n`,
  );
}
