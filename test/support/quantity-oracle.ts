import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildGoProgram } from './build-go-program.js';

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

/** Builds it once into the test cache (buildGoProgram); resolves with its path. */
export function buildQuantityOracle(): Promise<string> {
  return buildGoProgram('quantity-oracle', oracleSourceDir());
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
