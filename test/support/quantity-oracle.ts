import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, constants, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { testCacheDir } from './use-control-plane.js';

/** A request to the Go quantity oracle (test/support/quantity-oracle/main.go). */
export type OracleRequest =
  { q: string } | { cmp: [string, string] } | { json: string } | { milli: string };

/** Its answer: `exact` is apimachinery's AsDec().String() (e.g. "-1.5", "9223372036854775807"). */
export interface OracleAnswer {
  ok: boolean;
  err?: string;
  exact?: string;
  null?: boolean;
  cmp?: -1 | 0 | 1;
}

/** The Go module of the oracle, beside this file's source (dist/test/support/<this>.js -> test/support/quantity-oracle). */
function oracleSourceDir(): string {
  return fileURLToPath(new URL('../../../test/support/quantity-oracle/', import.meta.url));
}

/**
 * Builds the oracle with `go build` through the module proxy (nothing vendored) into the cache
 * the control-plane harness uses (testCacheDir(), e.g. ~/.cache/voe), keyed by a hash of its
 * main.go, go.mod and go.sum: the first run takes seconds to a minute, later ones reuse the binary.
 * Resolves with its path.
 */
export async function buildQuantityOracle(): Promise<string> {
  const source = oracleSourceDir();
  const hash = createHash('sha256');
  for (const file of ['main.go', 'go.mod', 'go.sum'])
    hash.update(`${file}\0`).update(await readFile(join(source, file)));
  const dir = join(testCacheDir(), 'bin');
  const binary = join(dir, `quantity-oracle-${hash.digest('hex').slice(0, 16)}`);
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
      env: { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
      maxBuffer: 1 << 24,
    });
    await rename(tmp, binary); // atomic: a parallel build only wastes its time
  } finally {
    await rm(tmp, { force: true });
  }
  return binary;
}

/** Asks the oracle binary every request at once (one process, one line each); answers in order. */
export async function askQuantityOracle(
  binary: string,
  requests: readonly OracleRequest[],
): Promise<OracleAnswer[]> {
  const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  child.stdin.end(requests.map((request) => `${JSON.stringify(request)}\n`).join(''));
  const code = await closed;
  if (code !== 0) throw new Error(`quantity oracle exited ${code}: ${stderr}`);
  const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
  if (lines.length !== requests.length)
    throw new Error(
      `quantity oracle answered ${lines.length} lines to ${requests.length} requests`,
    );
  return lines.map((line) => JSON.parse(line) as OracleAnswer);
}
