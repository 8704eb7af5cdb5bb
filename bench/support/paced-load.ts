import { Agent, request } from 'node:https';
import { createHistogram } from 'node:perf_hooks';

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  /** Achieved rate over the measured part of the run, requests/s. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Largest delay between a measured request's scheduled time and its actual send (generator lateness). */
  maxLagMs: number;
}

export interface PacedLoadOptions {
  port: number;
  path: string;
  caPem: string;
  bodies: string[];
  rate: number;
  durationS: number;
  /** Sent on the same schedule before the measured part, not recorded (JIT, TLS sessions). Default 1 s. */
  warmupS?: number;
  /** Connections opened before the schedule starts (so no TLS handshakes happen during it); at most this many are used. Default 16. */
  connections?: number;
}

function post(
  agent: Agent,
  options: PacedLoadOptions,
  body: Buffer,
  done: (ok: boolean) => void,
): void {
  const req = request(
    {
      host: '127.0.0.1',
      port: options.port,
      path: options.path,
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': body.length },
    },
    (res) => {
      res.on('data', () => {});
      res.on('end', () => done(res.statusCode === 200));
    },
  );
  req.on('error', () => done(false));
  req.end(body);
}

/**
 * Open-loop load at a fixed rate: request i is sent at start + i/rate whatever happened to earlier
 * ones (no coordinated omission: a slow answer does not delay the next request), over keep-alive
 * connections opened beforehand. Latency is measured per request from send to the end of the
 * response, in nanoseconds (node:perf_hooks histogram). autocannon's rate limit sends each
 * connection's quota for a second as one burst, which measures burst queueing instead.
 */
export async function pacedLoad(options: PacedLoadOptions): Promise<PacedResult> {
  const connections = options.connections ?? 16;
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca: options.caPem });
  const bodies = options.bodies.map((b) => Buffer.from(b));
  // Open every connection first: concurrent requests force the agent to create `connections` sockets.
  await Promise.all(
    Array.from(
      { length: connections },
      (_, i) =>
        new Promise<void>((resolve) =>
          post(agent, options, bodies[i % bodies.length]!, () => resolve()),
        ),
    ),
  );

  const histogram = createHistogram();
  const warmup = Math.round(options.rate * (options.warmupS ?? 1));
  const total = warmup + Math.round(options.rate * options.durationS);
  const intervalNs = 1e9 / options.rate;
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let finished = 0;
  let maxLagNs = 0;
  let measuredStart = 0n;
  const begin = process.hrtime.bigint();
  await new Promise<void>((resolve) => {
    const fire = (index: number): void => {
      const t0 = process.hrtime.bigint();
      if (index === warmup) measuredStart = t0;
      post(agent, options, bodies[index % bodies.length]!, (success) => {
        if (index >= warmup) {
          histogram.record(Math.max(1, Number(process.hrtime.bigint() - t0)));
          if (success) ok++;
          else failed++;
        }
        if (++finished === total) resolve();
      });
    };
    const pump = (): void => {
      const elapsed = Number(process.hrtime.bigint() - begin);
      while (sent < total && sent * intervalNs <= elapsed) {
        if (sent >= warmup) maxLagNs = Math.max(maxLagNs, elapsed - sent * intervalNs);
        fire(sent);
        sent++;
      }
      if (sent < total) setTimeout(pump, 0);
    };
    pump();
  });
  const seconds = Number(process.hrtime.bigint() - measuredStart) / 1e9;
  agent.destroy();
  const measured = total - warmup;
  return {
    sent: measured,
    ok,
    failed,
    rate: measured / seconds,
    p50Ms: histogram.percentile(50) / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    maxMs: histogram.max / 1e6,
    maxLagMs: maxLagNs / 1e6,
  };
}
