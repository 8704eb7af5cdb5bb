/**
 * A server process for bench/webhook.bench.ts (so the load generator does not share its event loop):
 * `voe` = createWebhookServer with the real admission validators over warm caches of N PVCs and VMs (+ running VMs' VMIs),
 * after one full garbage collection (compactHeap) as `voe serve` runs once its caches have listed;
 * `voe-workers` = the same in W worker processes (startWorkerPool + serveAsWorker, as `voe serve --workers W`
 * runs them; this script is also each worker, mode `voe-worker`); `bare` = node:https answering a
 * constant AdmissionReview; `bare-parse` = the same plus JSON.parse of the body; `bare-scan` = the same plus one
 * well-formedness pass over the body that builds no objects (scanJson). Prints nothing; reports its port (and the
 * pids of the processes serving) over IPC.
 */
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createLogger } from '../../src/log/index.js';
import { fileURLToPath } from 'node:url';
import {
  compactHeap,
  createAdmissionValidators,
  createWebhookServer,
  MemoryCache,
  serveAsWorker,
  startWorkerPool,
} from '../../src/webhook/index.js';
import { buildFixture } from './cluster-fixtures.js';
import { fixtureCaches } from './fixture-caches.js';
import { scanJson } from './scan-json.js';

/** The fixture's caches; the fixture itself dies with this function's frame. */
function cachesOfFixture(count: number): ReturnType<typeof fixtureCaches> {
  return fixtureCaches(buildFixture(count));
}

/**
 * The fixture's caches, then one full garbage collection, as `voe serve` does once its caches
 * have listed (startAdmissionCaches). The fixture is built in a frame that has returned before the
 * collection: built at the module's top level, a temporary of the module's own frame still held it
 * while the collection ran (a `--workers` worker kept ~54 MiB of it: 176 -> 163 MiB instead of
 * -> 109 MiB), and that worker's old generation then grew by every request's garbage under load,
 * as in session 24 (docs/performance.md, session 25).
 */
function cachesCompacted(count: number): ReturnType<typeof fixtureCaches> {
  const caches = cachesOfFixture(count);
  compactHeap();
  return caches;
}

const [mode, certFile, keyFile, countText, workersText] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
];

/** Production log level (info: every refusal is logged), written to /dev/null asynchronously. */
const quietLogger = () =>
  createLogger({
    level: 'info',
    destination: pino.destination({ dest: '/dev/null', sync: false }),
  });

if (mode === 'bare' || mode === 'bare-parse' || mode === 'bare-scan') {
  // bare: reads the body, answers a constant. bare-parse: also JSON.parse()s the body and echoes the uid,
  // the least any webhook must do (shows how much of the gap to bare is decoding the review).
  // bare-scan: checks the body is well-formed JSON without building anything and echoes the uid found by
  // searching the text: the cheapest conceivable decoding, for comparison with JSON.parse.
  const answer = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: 'constant', allowed: true },
  });
  const server = createServer(
    { cert: readFileSync(certFile), key: readFileSync(keyFile) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => {
        if (mode !== 'bare') chunks.push(chunk);
      });
      req.on('end', () => {
        let body = answer;
        if (mode === 'bare-parse') {
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            request: { uid: string };
          };
          body = JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, allowed: true },
          });
        } else if (mode === 'bare-scan') {
          const text = Buffer.concat(chunks).toString('utf8');
          if (!scanJson(text)) {
            res.writeHead(400).end();
            return;
          }
          const at = text.indexOf('"uid":"') + 7;
          body = JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: text.slice(at, text.indexOf('"', at)), allowed: true },
          });
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
    },
  );
  server.keepAliveTimeout = 90_000;
  server.listen(0, '127.0.0.1', () =>
    process.send?.({ port: (server.address() as AddressInfo).port, pids: [process.pid] }),
  );
} else if (mode === 'voe-workers') {
  const pool = await startWorkerPool({
    count: Number(workersText),
    exec: fileURLToPath(import.meta.url),
    args: ['voe-worker', certFile, keyFile, countText],
    logger: quietLogger(),
  });
  process.send?.({ port: pool.address.port, pids: [process.pid, ...pool.pids] });
  process.on('disconnect', () => {
    void pool.stop().finally(() => process.exit(0));
  });
} else if (mode === 'voe-worker') {
  // Only the caches stay reachable: the fixture's whole VMIs (~33 MiB of JSON) are dropped once cached lean, as `voe serve` keeps them.
  const caches = cachesCompacted(Number(countText));
  await serveAsWorker({
    logger: quietLogger(),
    host: '127.0.0.1',
    port: 0,
    tls: { certFile, keyFile },
    startCaches: async () => ({
      caches,
      ready: () => true,
      unsynced: () => [],
      notServed: () => [],
      stop: async () => undefined,
    }),
    createValidators: (caches) =>
      createAdmissionValidators({ caches, csiDrivers: new MemoryCache([]) }),
  });
} else {
  const validators = createAdmissionValidators({
    caches: cachesCompacted(Number(countText)),
    csiDrivers: new MemoryCache([]),
  });
  const server = createWebhookServer({
    validators,
    tls: { certFile, keyFile },
    ready: () => true,
    logger: quietLogger(),
  });
  const address = await server.listen(0, '127.0.0.1');
  process.send?.({ port: address.port, pids: [process.pid] });
}
if (mode !== 'voe-workers' && mode !== 'voe-worker')
  process.on('disconnect', () => process.exit(0));
