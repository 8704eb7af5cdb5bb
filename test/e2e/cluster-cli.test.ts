import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../support/expect-error.js';
import { onCleanup } from '../support/cleanup.js';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../support/eventually.js';
import { controlPlaneTestEnv } from '../support/use-control-plane.js';

const run = promisify(execFile);
const voe = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Why waiting on a `voe cluster run` is pointless: it exited. */
function ended(child: ChildProcess): string | undefined {
  return child.exitCode === null && child.signalCode === null
    ? undefined
    : `voe cluster run exited (${child.exitCode ?? child.signalCode})`;
}

/** Running: it exists and is not a zombie (a killed child whose new parent has not reaped it yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

it('voe cluster start writes a working kubeconfig and voe cluster stop leaves nothing running', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  onCleanup(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  const started = await run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], {
    timeout: 180_000,
    env: controlPlaneTestEnv(),
  });
  assert.match(started.stdout, new RegExp(`export KUBECONFIG=${join(dir, 'kubeconfig')}`));
  const pids = await Promise.all(
    ['voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid'].map(async (f) =>
      Number.parseInt(await readFile(join(dir, f), 'utf8'), 10),
    ),
  );
  assert.ok(pids.every(alive));

  const kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
  assert.ok(namespaces.items.some((n) => n.metadata?.name === 'kube-system'));

  await expectRejection(
    run(process.execPath, [voe, 'cluster', 'start', '--dir', dir]),
    /already runs/,
  );
  // A second supervisor in the foreground is refused before it touches the directory (it used to
  // rewrite the certificates and pid files of the running control plane, breaking its kubeconfig).
  await expectRejection(
    run(process.execPath, [voe, 'cluster', 'run', '--dir', dir], { env: controlPlaneTestEnv() }),
    failedRun(
      (error) =>
        error.code === 2 &&
        /CONTROLPLANE_ALREADY_RUNNING: a control plane already runs \(or is starting\)/.test(
          error.stderr ?? '',
        ),
    ),
  );
  const again = new KubeConfig();
  again.loadFromFile(join(dir, 'kubeconfig'));
  assert.ok(
    (await again.makeApiClient(CoreV1Api).listNamespace()).items.length > 0,
    'the running control plane still answers with its kubeconfig',
  );
  assert.deepStrictEqual(
    await Promise.all(
      ['voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid'].map(async (f) =>
        Number.parseInt(await readFile(join(dir, f), 'utf8'), 10),
      ),
    ),
    pids,
  );

  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.match(stopped.stdout, /stopped/);
  for (const pid of pids) assert.isFalse(alive(pid), `pid ${pid} is gone`);
});

it('voe cluster start on a directory whose control plane is still starting is refused before it changes anything there', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  const foreground = spawn(process.execPath, [voe, 'cluster', 'run', '--dir', dir], {
    stdio: 'ignore',
    env: controlPlaneTestEnv(),
  });
  onCleanup(async () => {
    if (foreground.exitCode === null) {
      foreground.kill('SIGTERM');
      await new Promise((resolve) => foreground.once('exit', resolve));
    }
    await rm(dir, { recursive: true, force: true });
  });
  const exists = (name: string): Promise<boolean> =>
    readFile(join(dir, name)).then(
      () => true,
      () => false,
    );
  // Starting: it holds the lock, and writes its pid file only once the control plane is ready.
  // A deadline, not a count of polls: a loaded machine may take seconds just to start node and voe.
  await eventually(
    () => exists('voe-cluster.lock'),
    60_000,
    'the foreground run to take the lock',
    {
      intervalMs: 20,
      giveUp: () => ended(foreground),
    },
  );
  assert.isFalse(await exists('voe-cluster.pid'), 'still starting');
  await expectRejection(
    run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], { env: controlPlaneTestEnv() }),
    failedRun(
      (error) =>
        error.code === 2 &&
        /CONTROLPLANE_ALREADY_RUNNING: a control plane already runs \(or is starting\) for .* \(pid \d+\)/.test(
          error.stderr ?? '',
        ),
    ),
  );
  assert.isFalse(
    await exists('voe-cluster.log'),
    'no second supervisor was started in the background',
  );
  await eventually(() => exists('voe-cluster.pid'), 90_000, 'the first one to become ready', {
    giveUp: () => ended(foreground),
  });
  const kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  assert.ok((await kc.makeApiClient(CoreV1Api).listNamespace()).items.length > 0);
});

it('voe cluster stop never kills a process that only reused a pid from a leftover pid file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
  onCleanup(async () => {
    bystander.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  for (const name of ['voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid'])
    await writeFile(join(dir, name), `${bystander.pid}\n`);
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(
    stopped.stdout,
    `no control plane runs in ${dir}; nothing to stop\n`,
    'the pid files name no process of this directory',
  );
  assert.ok(alive(bystander.pid!), 'the unrelated process still runs');
  assert.isNull(bystander.exitCode);
});

it('voe --help lists the commands', async () => {
  const { stdout } = await run(process.execPath, [voe, '--help']);
  assert.match(stdout, /cluster/);
});

/** A validation function for expectRejection: `check` gets the failed run's exit code and stderr. */
function failedRun(check: (error: { code?: number; stderr?: string }) => boolean) {
  return (error: unknown): boolean => check(error as { code?: number; stderr?: string });
}

/** `voe cluster run` in the foreground, once ready: its exit, and the pids of etcd and kube-apiserver. */
async function readyForegroundRun() {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  const foreground = spawn(process.execPath, [voe, 'cluster', 'run', '--dir', dir], {
    stdio: 'ignore',
    env: controlPlaneTestEnv(),
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    foreground.once('exit', (code, signal) => resolve({ code, signal })),
  );
  onCleanup(async () => {
    if (foreground.exitCode === null) foreground.kill('SIGKILL');
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  await eventually(
    async () => (await readFile(join(dir, 'ready'), 'utf8').catch(() => '')) !== '',
    90_000,
    'it to become ready',
    { giveUp: () => ended(foreground) },
  );
  const children = await Promise.all(
    ['etcd.pid', 'kube-apiserver.pid'].map(async (f) =>
      Number.parseInt(await readFile(join(dir, f), 'utf8'), 10),
    ),
  );
  return { dir, foreground, exited, children };
}

it('voe cluster run: a second SIGINT while it stops kills what is left at once (no etcd left running), exit 130', async () => {
  const { dir, foreground, exited, children } = await readyForegroundRun();
  const exists = (name: string): Promise<boolean> =>
    readFile(join(dir, name)).then(
      () => true,
      () => false,
    );
  foreground.kill('SIGINT');
  // The graceful stop begins by removing the ready file: the second SIGINT comes while it stops.
  await eventually(async () => !(await exists('ready')), 30_000, 'it to start stopping', {
    intervalMs: 10,
    giveUp: () => ended(foreground),
  });
  foreground.kill('SIGINT');
  assert.deepStrictEqual(await exited, { code: 130, signal: null });
  assert.isTrue(
    await exists('voe-cluster.pid'),
    'the graceful stop, which removes the pid files at its end, was cut short',
  );
  // Killed (SIGKILL) as it exited, they are gone once the kernel has ended them: nothing waits for them.
  await eventually(
    () => children.filter(alive).length === 0,
    10_000,
    'etcd and kube-apiserver to be gone',
  );
});

it('voe cluster run: one SIGTERM once ready stops it gracefully (ready and pid files removed, etcd and kube-apiserver gone) and exits 143', async () => {
  const { dir, foreground, exited, children } = await readyForegroundRun();
  foreground.kill('SIGTERM');
  assert.deepStrictEqual(await exited, { code: 143, signal: null });
  assert.deepStrictEqual(children.filter(alive), [], 'etcd and kube-apiserver are gone');
  for (const name of ['ready', 'voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid']) {
    assert.isFalse(
      await readFile(join(dir, name)).then(
        () => true,
        () => false,
      ),
      `${name} removed`,
    );
  }
});

it('voe cluster build with a cache dir that cannot be created says so (no stack trace); start rejects a --timeout that is not a number from 1 to 2147483', async () => {
  const env = { ...process.env };
  for (const name of ['TEST_ASSET_KUBE_APISERVER', 'TEST_ASSET_ETCD', 'KUBEBUILDER_ASSETS'])
    delete env[name];
  await expectRejection(
    run(process.execPath, [voe, 'cluster', 'build', '--cache-dir', '/dev/null/voe'], { env }),
    failedRun(
      (error) =>
        error.code === 2 &&
        /^voe: CONTROLPLANE_BUILD_FAILED: cannot create the build cache \/dev\/null\/voe\/.* \(ENOTDIR\); pass a writable --cache-dir or set VOE_CACHE_DIR$/m.test(
          error.stderr ?? '',
        ) &&
        !/\n\s+at /.test(error.stderr ?? ''),
    ),
  );
  for (const timeout of ['abc', '0.5', '0', '2147484']) {
    await expectRejection(
      run(process.execPath, [
        voe,
        'cluster',
        'start',
        '--dir',
        '/tmp/never-used',
        '--timeout',
        timeout,
      ]),
      failedRun(
        (error) =>
          error.code !== 0 &&
          /--timeout.*must be a number of seconds from 1 to 2147483/.test(error.stderr ?? ''),
      ),
      timeout,
    );
  }
});

it('two voe cluster start on one directory at once: one starts the control plane, the other is refused with CONTROLPLANE_ALREADY_RUNNING', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  onCleanup(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });
  // Both take and release the directory's lock before either supervisor holds it: the loser learns
  // it lost only from its own supervisor, which finds the lock held by the winner's.
  const starts = await Promise.allSettled(
    [1, 2].map(() =>
      run(process.execPath, [voe, 'cluster', 'start', '--dir', dir], {
        timeout: 180_000,
        env: controlPlaneTestEnv(),
      }),
    ),
  );
  const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const refused = starts.flatMap((s) =>
    s.status === 'rejected' ? [s.reason as { code?: number; stderr?: string }] : [],
  );
  assert.strictEqual(
    started.length,
    1,
    `one start succeeds: ${JSON.stringify(refused.map((r) => r.stderr))}`,
  );
  assert.match(started[0]!.stdout, /^control plane ready at /m);
  assert.strictEqual(refused.length, 1, 'the other is refused');
  assert.strictEqual(refused[0]!.code, 2);
  assert.match(
    refused[0]!.stderr ?? '',
    /^voe: CONTROLPLANE_ALREADY_RUNNING: a control plane already runs \(or is starting\) for /m,
  );

  const kc = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  assert.ok(
    (await kc.makeApiClient(CoreV1Api).listNamespace()).items.length > 0,
    'the control plane that started answers with its kubeconfig',
  );
  const pids = await Promise.all(
    ['voe-cluster.pid', 'etcd.pid', 'kube-apiserver.pid'].map(async (f) =>
      Number.parseInt(await readFile(join(dir, f), 'utf8'), 10),
    ),
  );
  const stopped = await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]);
  assert.strictEqual(stopped.stdout, `control plane in ${dir} stopped\n`);
  await eventually(
    () => pids.filter(alive).length === 0,
    10_000,
    'the supervisor, etcd and kube-apiserver to be gone',
  );
});

it('voe cluster stop, start and run with a --dir that is a file say so with a code (no stack trace) and leave the file alone', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  onCleanup(() => rm(parent, { recursive: true, force: true }));
  const file = join(parent, 'not-a-directory');
  await writeFile(file, 'kept\n');
  const refused = async (args: string[]): Promise<string> => {
    const error = await run(process.execPath, [voe, ...args], { env: controlPlaneTestEnv() }).then(
      () => assert.fail(`${args.join(' ')} succeeded`),
      (failure: { code?: number; stderr?: string }) => failure,
    );
    assert.strictEqual(error.code, 2, args.join(' '));
    assert.notMatch(error.stderr ?? '', /\n\s+at /, `${args.join(' ')}: no stack trace`);
    return error.stderr ?? '';
  };
  for (const dir of [file, join(file, 'below')]) {
    assert.strictEqual(
      await refused(['cluster', 'stop', '--dir', dir]),
      `voe: CONTROLPLANE_STOP_FAILED: cannot stop a control plane in ${dir}: it is not a directory (ENOTDIR); pass the --dir given to 'voe cluster start'\n`,
    );
  }
  for (const command of ['start', 'run']) {
    assert.strictEqual(
      await refused(['cluster', command, '--dir', file]),
      `voe: CONTROLPLANE_START_FAILED: cannot create the lock file in ${file} (ENOTDIR)\n`,
    );
  }
  assert.strictEqual(await readFile(file, 'utf8'), 'kept\n');
});

/** The processes whose command line names DIR (its supervisor, etcd, kube-apiserver), by /proc. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, 'utf8')
            .split('\0')
            .some((arg) => arg.includes(dir)) && alive(pid)
        );
      } catch {
        return false;
      }
    });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  it(`voe cluster start stopped by ${signal} while its control plane starts stops it too: nothing of it runs on in the background, no pid file or lock left`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
    const start = spawn(process.execPath, [voe, 'cluster', 'start', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: controlPlaneTestEnv(),
    });
    let stderr = '';
    start.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = once(start, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    onCleanup(async () => {
      await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
      for (const pid of processesIn(dir)) process.kill(pid, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    });
    // Its supervisor has started etcd: kube-apiserver and the CRDs take seconds more.
    await eventually(() => existsSync(join(dir, 'etcd.pid')), 60_000, 'the supervisor starts etcd');
    assert.ok(!existsSync(join(dir, 'ready')), 'still starting');
    start.kill(signal);
    const [code] = await exited;
    assert.strictEqual(code, signal === 'SIGINT' ? 130 : 143);
    assert.match(
      stderr,
      /voe: stopping the control plane that was starting in .*\nvoe: stopped; nothing of it runs/,
    );
    assert.deepStrictEqual(
      processesIn(dir),
      [],
      'no supervisor, etcd or kube-apiserver of DIR runs',
    );
    for (const name of [
      'ready',
      'voe-cluster.pid',
      'etcd.pid',
      'kube-apiserver.pid',
      'voe-cluster.lock',
    ]) {
      assert.isFalse(existsSync(join(dir, name)), `${name} is not left behind`);
    }
  });
}

it('voe cluster start in a directory whose path has a space (and a quote) prints an export line a shell reads back as that path', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'voe-cluster-cli-'));
  const dir = join(parent, "control plane's dir");
  onCleanup(async () => {
    await run(process.execPath, [voe, 'cluster', 'stop', '--dir', dir]).catch(() => undefined);
    await rm(parent, { recursive: true, force: true });
  });
  const started = await run(
    process.execPath,
    [voe, 'cluster', 'start', '--dir', dir, '--no-crds'],
    { timeout: 180_000, env: controlPlaneTestEnv() },
  );
  const { stdout } = await run('sh', ['-c', `${started.stdout}printf %s "$KUBECONFIG"`]);
  assert.strictEqual(stdout, join(dir, 'kubeconfig'));
  const kc = new KubeConfig();
  kc.loadFromFile(stdout);
  assert.ok((await kc.makeApiClient(CoreV1Api).listNamespace()).items.length > 0);
});
