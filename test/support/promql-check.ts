import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildGoProgram } from './build-go-program.js';

/** The Go module of the checker (test/support/promql-check/main.go: Prometheus's own PromQL parser). */
function sourceDir(): string {
  return fileURLToPath(new URL('../../../test/support/promql-check/', import.meta.url));
}

/** Builds it once into the test cache (buildGoProgram); resolves with its path. */
export function buildPromqlCheck(): Promise<string> {
  return buildGoProgram('promql-check', sourceDir());
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
