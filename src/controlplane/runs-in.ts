import { readFile, readlink } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';

/**
 * True when `pid` runs (a dead one has no /proc entry, a zombie an empty command line) a command
 * that names `dir` in its arguments (the supervisor's --dir, etcd's --data-dir, kube-apiserver's
 * certificate paths): a pid file left behind may name a process that reused the pid since, which
 * must be neither killed nor taken for a control plane. A relative directory (`voe cluster run
 * --dir x` typed by hand) is read from that process's working directory. `dir` is absolute.
 */
export async function runsIn(pid: number, dir: string): Promise<boolean> {
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
  // The directory itself, absolute or relative (`--dir x`, `--dir=x`), or a path inside it as the
  // supervisor passes them to etcd and kube-apiserver (absolute).
  const isDir = (path: string): boolean =>
    path !== '' && (isAbsolute(path) ? path : cwd === null ? null : resolve(cwd, path)) === dir;
  return cmdline
    .split('\0')
    .some(
      (arg) =>
        arg.includes(`${dir}/`) ||
        isDir(arg) ||
        (arg.includes('=') && isDir(arg.slice(arg.indexOf('=') + 1))),
    );
}
