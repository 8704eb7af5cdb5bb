/**
 * Imported first by main.ts, before the rest of the CLI loads: in a `voe serve --workers` worker,
 * the signals a terminal sends to every process of its group (Ctrl-C) are ignored from the
 * worker's first moments on. Its primary alone decides when it stops (after removing the
 * registration) and tells it over IPC.
 */
import cluster from 'node:cluster';
import { WORKER_ENV } from '../webhook/worker-messages.js';
import { STOP_SIGNALS } from './stop-requests.js';

if (cluster.isWorker && process.env[WORKER_ENV] !== undefined) {
  for (const signal of STOP_SIGNALS) process.on(signal, () => undefined);
}
