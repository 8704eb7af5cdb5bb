/**
 * The etcd and kube-apiserver of a control plane whose supervisor was killed (SIGKILL) keep
 * running with their pid files in DIR: nothing may start another control plane there. Stand-ins
 * for them are processes whose command lines name DIR as theirs do; a pid file naming a process
 * that does not (a pid reused since) does not count.
 */
import { it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ControlPlaneError,
  lockControlPlaneDir,
  startControlPlane,
} from '../../../src/controlplane/index.js';
import { ensureNoEarlierProcesses } from '../../../src/controlplane/ensure-no-earlier-processes.js';

it("a live etcd or kube-apiserver named in DIR's pid files refuses a new control plane there (CONTROLPLANE_ALREADY_RUNNING) before anything in DIR changes", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'voe-earlier-'));
  const children: ChildProcess[] = [];
  const standIn = (...args: string[]): number => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)', '--', ...args], {
      stdio: 'ignore',
    });
    children.push(child);
    return child.pid!;
  };
  onCleanup(async () => {
    for (const child of children) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });
  const etcd = standIn(`--data-dir=${join(dir, 'etcd')}`);
  const apiServer = standIn(`--cert-dir=${join(dir, 'pki')}`);
  const bystander = standIn('--data-dir=/elsewhere/etcd');
  const refused =
    (names: string) =>
    (error: unknown): boolean =>
      error instanceof ControlPlaneError &&
      error.code === 'CONTROLPLANE_ALREADY_RUNNING' &&
      error.message ===
        `processes of an earlier control plane still run for ${dir}: ${names}; use 'voe cluster stop --dir ${dir}' first`;

  await ensureNoEarlierProcesses(dir);
  await writeFile(join(dir, 'etcd.pid'), `${bystander}\n`);
  await writeFile(join(dir, 'kube-apiserver.pid'), `${bystander}\n`);
  await ensureNoEarlierProcesses(dir);

  await writeFile(join(dir, 'etcd.pid'), `${etcd}\n`);
  await expectRejection(ensureNoEarlierProcesses(dir), refused(`etcd (pid ${etcd})`));
  await writeFile(join(dir, 'kube-apiserver.pid'), `${apiServer}\n`);
  await expectRejection(
    ensureNoEarlierProcesses(dir),
    refused(`etcd (pid ${etcd}), kube-apiserver (pid ${apiServer})`),
  );

  const before = (await readdir(dir)).sort();
  // The lock is released again: the refusal leaves no voe-cluster.lock behind.
  await expectRejection(
    lockControlPlaneDir(dir),
    refused(`etcd (pid ${etcd}), kube-apiserver (pid ${apiServer})`),
  );
  assert.deepStrictEqual((await readdir(dir)).sort(), before);
  // Refused before the binaries are looked for (here they could not be: no PATH, an empty cache)
  // and before any certificate or pid file is written.
  await expectRejection(
    startControlPlane({ dir, cacheDir: join(dir, 'no-cache'), env: {} }),
    refused(`etcd (pid ${etcd}), kube-apiserver (pid ${apiServer})`),
  );
  assert.deepStrictEqual((await readdir(dir)).sort(), before);
  assert.strictEqual(await readFile(join(dir, 'etcd.pid'), 'utf8'), `${etcd}\n`);
  assert.strictEqual(await readFile(join(dir, 'kube-apiserver.pid'), 'utf8'), `${apiServer}\n`);
});
