/**
 * Fixed-concurrency load for bench/webhook.bench.ts with wrk (Debian's `wrk` package), a load
 * generator in C that uses ~21–25 µs of CPU per request on the bench machine, against 67–200 µs for
 * autocannon in the bench's own process (docs/performance.md, sessions 25 and 26). On a 2-vCPU
 * machine the generator's CPU is taken from the servers it measures, and more from a server of two
 * worker processes (which needs both vCPUs) than from the one-process constant server: the lighter
 * the generator, the more the ratio is the servers'. Each connection sends the bodies in turn, one
 * request each, over keep-alive TLS connections; wrk does not check the server's certificate.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface WrkResult {
  /** Answers received during the run. */
  requests: number;
  durationS: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers whose status was not 2xx or 3xx. */
  non2xx: number;
  /** Connect, read and write errors and timeouts. */
  socketErrors: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match)
    throw new Error(`wrk printed a latency that is not a duration: ${JSON.stringify(text)}`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** What `wrk --latency` prints, read; throws when a line the bench needs is missing. */
export function parseWrkOutput(output: string): WrkResult {
  const total = /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m),/m.exec(output);
  const rate = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  const p50 = /^\s+50%\s+(\S+)/m.exec(output);
  const p99 = /^\s+99%\s+(\S+)/m.exec(output);
  if (!total || !rate || !p50 || !p99)
    throw new Error(
      `wrk printed no results (requests, Requests/sec and the latency distribution): ${output.slice(0, 400)}`,
    );
  const errors = /^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/m.exec(
    output,
  );
  return {
    requests: Number(total[1]),
    durationS: durationMs(`${total[2]}${total[3]}`) / 1000,
    requestsPerSecond: Number(rate[1]),
    p50Ms: durationMs(p50[1]!),
    p99Ms: durationMs(p99[1]!),
    non2xx: Number(/^\s*Non-2xx or 3xx responses: (\d+)/m.exec(output)?.[1] ?? 0),
    socketErrors: errors ? errors.slice(1).reduce((n, v) => n + Number(v), 0) : 0,
  };
}

/**
 * Each connection cycles through the bodies (one JSON text per line of VOE_BENCH_BODIES), POSTing
 * each to `path`. The requests are formatted once, in init: wrk.format on every request cost wrk
 * ~2 µs of CPU per request here (median of 8 runs each against the constant server: 26.6 µs
 * formatting each request, 24.2 µs formatted once), CPU the servers it measures then lack.
 */
const SCRIPT = `local requests = {}
init = function(args)
  local path = os.getenv("VOE_BENCH_PATH")
  for line in io.lines(os.getenv("VOE_BENCH_BODIES")) do
    requests[#requests + 1] = wrk.format("POST", path, { ["Content-Type"] = "application/json" }, line)
  end
  counter = 0
end
request = function()
  counter = counter % #requests + 1
  return requests[counter]
end
`;

export interface WrkLoad {
  run(port: number, options: { connections: number; durationS: number }): Promise<WrkResult>;
}

/** Writes the script and the bodies (none may hold a newline) into `dir`; `run` then loads one server for a while. */
export async function prepareWrkLoad(
  dir: string,
  path: string,
  bodies: readonly string[],
): Promise<WrkLoad> {
  if (bodies.some((body) => body.includes('\n')))
    throw new Error('a request body for wrk holds a newline');
  const scriptFile = join(dir, 'bodies.lua');
  const bodiesFile = join(dir, 'bodies.txt');
  await writeFile(scriptFile, SCRIPT);
  await writeFile(bodiesFile, `${bodies.join('\n')}\n`);
  return {
    async run(port, { connections, durationS }) {
      const { stdout } = await promisify(execFile)(
        'wrk',
        [
          '--threads',
          '1',
          '--connections',
          String(connections),
          '--duration',
          `${durationS}s`,
          '--latency',
          '--script',
          scriptFile,
          `https://127.0.0.1:${port}${path}`,
        ],
        {
          env: { ...process.env, VOE_BENCH_BODIES: bodiesFile, VOE_BENCH_PATH: path },
          maxBuffer: 1024 * 1024,
        },
      ).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT')
          throw new Error(
            'wrk is not installed: `apt-get install wrk` (scripts/install-test-deps.sh installs it)',
          );
        throw error;
      });
      return parseWrkOutput(stdout);
    },
  };
}
