import { Agent, request } from 'node:https';
import { createHistogram } from 'node:perf_hooks';

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  /** Achieved rate over the run, requests/s. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Largest delay between a request's scheduled time and its actual send (generator lateness). */
  maxLagMs: number;
}

/**
 * Open-loop load at a fixed rate: request i is sent at start + i/rate whatever happened to earlier
 * ones (no coordinated omission: a slow answer does not delay the next request), over keep-alive
 * connections. Latency is measured per request from send to the end of the response, in
 * nanoseconds (node:perf_hooks histogram). autocannon's rate limit sends each connection's quota
 * for a second as one burst, which measures burst queueing instead; see docs/performance.md.
 */
export async function pacedLoad(options: {
  port: number; path: string; caPem: string; bodies: string[]; rate: number; durationS: number; maxSockets?: number;
}): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64, ca: options.caPem });
  const histogram = createHistogram();
  const total = Math.round(options.rate * options.durationS);
  const intervalNs = 1e9 / options.rate;
  let sent = 0;
  let ok = 0;
  let failed = 0;
  let finished = 0;
  let maxLagNs = 0;
  const begin = process.hrtime.bigint();
  const bodies = options.bodies.map((b) => Buffer.from(b));
  await new Promise<void>((resolve) => {
    const fire = (): void => {
      const body = bodies[sent % bodies.length]!;
      const t0 = process.hrtime.bigint();
      const req = request({
        host: '127.0.0.1', port: options.port, path: options.path, method: 'POST', agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          histogram.record(Math.max(1, Number(process.hrtime.bigint() - t0)));
          if (res.statusCode === 200) ok++; else failed++;
          if (++finished === total) resolve();
        });
      });
      req.on('error', () => { failed++; if (++finished === total) resolve(); });
      req.end(body);
    };
    const pump = (): void => {
      const elapsed = Number(process.hrtime.bigint() - begin);
      while (sent < total && sent * intervalNs <= elapsed) {
        maxLagNs = Math.max(maxLagNs, elapsed - sent * intervalNs);
        fire();
        sent++;
      }
      if (sent < total) setTimeout(pump, 0);
    };
    pump();
  });
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  agent.destroy();
  return {
    sent, ok, failed, rate: total / seconds,
    p50Ms: histogram.percentile(50) / 1e6, p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6, maxLagMs: maxLagNs / 1e6,
  };
}
