/**
 * What a benchmark writes into docs/performance.md: its results, between two markers that only it
 * rewrites, headed by where they were measured (machine, Node version, commit).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as prettier from 'prettier';

const execFileAsync = promisify(execFile);

/** docs/performance.md of the checkout this compiled file (dist/bench/support/) belongs to. */
export const PERFORMANCE_DOC = fileURLToPath(
  new URL('../../../docs/performance.md', import.meta.url),
);

/** The markers around a benchmark's results (`name` as in `npm run bench:<name>`). */
export function resultMarkers(name: string): { start: string; end: string } {
  return {
    start: `<!-- results of npm run bench:${name}: written by bench/${name}.bench.ts, edits are overwritten -->`,
    end: `<!-- end of the results of npm run bench:${name} -->`,
  };
}

/**
 * `text` with the part between `name`'s markers replaced by `results` (the markers kept); throws
 * when the markers are not there once each, in order: docs/performance.md says where each
 * benchmark's results go.
 */
export function replaceResults(text: string, name: string, results: string): string {
  const { start, end } = resultMarkers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (
    from < 0 ||
    to < from ||
    text.indexOf(start, from + 1) >= 0 ||
    text.indexOf(end, to + 1) >= 0
  ) {
    throw new Error(
      `docs/performance.md must hold the lines ${start} and ${end}, once each and in that order: the results of npm run bench:${name} go between them`,
    );
  }
  return `${text.slice(0, from + start.length)}\n\n${results.trim()}\n\n${text.slice(to)}`;
}

/**
 * Rewrites `name`'s results in docs/performance.md (see replaceResults), formatted by prettier with
 * the repository's settings (its tables aligned), as `npm run lint` checks it.
 */
export async function writeResults(name: string, results: string): Promise<void> {
  const text = replaceResults(await readFile(PERFORMANCE_DOC, 'utf8'), name, results);
  const options = await prettier.resolveConfig(PERFORMANCE_DOC);
  await writeFile(
    PERFORMANCE_DOC,
    await prettier.format(text, { ...options, filepath: PERFORMANCE_DOC }),
  );
}

/** The commit of the checkout (short hash), marked when tracked files differ from it; "unknown" outside git. */
async function commit(): Promise<string> {
  const cwd = fileURLToPath(new URL('../../..', import.meta.url));
  try {
    const { stdout: hash } = await execFileAsync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd,
    });
    const { stdout: changes } = await execFileAsync(
      'git',
      ['status', '--porcelain', '--untracked-files=no'],
      { cwd },
    );
    return `${hash.trim()}${changes.trim() ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** The line that heads a benchmark's results: machine, Node version and commit. */
export async function measuredOn(): Promise<string> {
  const cpu = cpus();
  const machine = `${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}`;
  return `Machine: ${machine}. Node ${process.version}. Commit ${await commit()}.`;
}
