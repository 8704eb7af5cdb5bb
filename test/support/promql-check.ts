import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { testCacheDir } from './use-control-plane.js';

/** The Go module of the checker (test/support/promql-check/main.go: Prometheus's own PromQL parser). */
function sourceDir(): string {
  return fileURLToPath(new URL('../../../test/support/promql-check/', import.meta.url));
}

/**
 * Builds the checker with `go build` through the module proxy into the test cache
 * (testCacheDir()/bin), keyed by a hash of its main.go, go.mod and go.sum; resolves with its path.
 */
export async function buildPromqlCheck(): Promise<string> {
  const source = sourceDir();
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum'])
    hash.update(`${file}\0`).update(await readFile(join(source, file)));
  const dir = join(testCacheDir(), 'bin');
  const binary = join(dir, `promql-check-${hash.digest('hex').slice(0, 16)}`);
  if (
    await access(binary, constants.X_OK).then(
      () => true,
      () => false,
    )
  )
    return binary;
  await mkdir(dir, { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  try {
    await promisify(execFile)('go', ['build', '-trimpath', '-o', tmp, '.'], {
      cwd: source,
      env: {
        ...process.env,
        CGO_ENABLED: '0',
        GOTOOLCHAIN: 'local',
        GOFLAGS: '-mod=readonly',
        GOWORK: 'off',
      },
      maxBuffer: 1 << 24,
    });
    await rename(tmp, binary); // atomic: a parallel build only wastes its time
  } finally {
    await rm(tmp, { force: true });
  }
  return binary;
}

/** What Prometheus's parser says of each expression, in order: undefined when it parses, else its error. */
export async function checkPromql(
  binary: string,
  expressions: string[],
): Promise<Array<string | undefined>> {
  const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  child.stdin.end(expressions.map((expr) => `${JSON.stringify(expr)}\n`).join(''));
  const code = await closed;
  if (code !== 0) throw new Error(`promql-check exited ${code}: ${stderr}`);
  const answers = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { ok: boolean; err?: string });
  if (answers.length !== expressions.length)
    throw new Error(`promql-check answered ${answers.length} lines to ${expressions.length}`);
  return answers.map((answer) => (answer.ok ? undefined : (answer.err ?? 'refused')));
}
