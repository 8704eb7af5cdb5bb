/**
 * The server process of bench/webhook.bench.ts: what `voe serve` runs once its caches have
 * listed, without the informers. createWebhookServer with the real admission validators
 * (createAdmissionValidators) over the admission caches of N PVCs and N VMs (and the running VMs'
 * VMIs), built by buildAdmissionCaches as the informers keep them (objects without managedFields,
 * VMIs lean; each object stripped as it is made, as the informers strip each object of a listed
 * page), with prom-client's default metrics and an info-level log written to /dev/null.
 * Arguments: certFile keyFile N. Prints nothing; reports its port and pid over IPC, and exits when
 * the bench disconnects.
 */
import { pino } from 'pino';
import { createLogger } from '../../src/log/index.js';
import { type VirtualMachineInstance, leanVmi } from '../../src/model/index.js';
import { MemoryCache } from '../../src/host-cache/memory-cache.js';
import { withoutManagedFields } from '../../src/host-cache/without-managed-fields.js';
import { createAdmissionValidators } from '../../src/webhook/create-admission-validators.js';
import { createWebhookServer } from '../../src/webhook/create-webhook-server.js';
import { buildFixture, type Obj } from './cluster-fixtures.js';
import { fixtureCaches } from './fixture-caches.js';

/** Everything a message from this process says. */
export interface BenchServerReady {
  port: number;
  pid: number;
}

/** The caches of a fixture of `count` objects of each kind, each object kept as the informers keep it. */
function cachesOfFixture(count: number): ReturnType<typeof fixtureCaches> {
  return fixtureCaches(
    buildFixture(count, undefined, {
      pvc: withoutManagedFields,
      vm: withoutManagedFields,
      vmi: (vmi) => leanVmi(vmi as VirtualMachineInstance) as Obj,
    }),
  );
}

const [certFile, keyFile, countText] = process.argv.slice(2) as [string, string, string];

const server = createWebhookServer({
  validators: createAdmissionValidators({
    caches: cachesOfFixture(Number(countText)),
    csiDrivers: new MemoryCache([]),
  }),
  tls: { certFile, keyFile },
  ready: () => true,
  // voe serve's level (info: every refusal is logged), written asynchronously.
  logger: createLogger({
    level: 'info',
    destination: pino.destination({ dest: '/dev/null', sync: false }),
  }),
});
const address = await server.listen(0, '127.0.0.1');
process.send?.({ port: address.port, pid: process.pid } satisfies BenchServerReady);
process.on('disconnect', () => {
  void server.close().finally(() => process.exit(0));
});
