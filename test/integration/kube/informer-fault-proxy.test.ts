/**
 * The informer against the real kube-apiserver, for answers a real one gives only with something
 * in between (test/support/fault-proxy.ts, a reverse proxy in front of it: kubernetes#115241's
 * spurious 404, 500s, a malformed watch event, watches cut short), and for a CRD that is really
 * gone (deleted on the API server, so that discovery itself says so).
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { CustomObjectsApi, type KubernetesObject } from '@kubernetes/client-node';
import { Informer } from '../../../src/kube/index.js';
import type { InformerOptions } from '../../../src/kube/informer.js';
import { installCrds } from '../../../src/controlplane/index.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import { vm } from '../../support/webhook/admission-objects.js';
import { captureLogger } from '../../support/capture-logger.js';
import { TestClock } from '../../support/test-clock.js';
import {
  startFaultProxy,
  type FaultProxy,
  type ProxiedRequest,
} from '../../support/fault-proxy.js';
import { eventually } from '../../support/eventually.js';
import { deleteCrd, resourceOf, testCrd } from '../../support/test-crd.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const cluster = new StagedCluster(cp.kubeConfig);
await cluster.apply({ vms: [vm('vm1')] });

const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VMS_PATH = '/apis/kubevirt.io/v1/virtualmachines';
const VMS_DISCOVERY = '/apis/kubevirt.io/v1';

/** An informer of VirtualMachines (unless told) that reaches the API server through a fault proxy; both stopped after the test. */
async function throughProxy(
  options: Partial<InformerOptions> = {},
): Promise<{ proxy: FaultProxy; informer: Informer<KubernetesObject> }> {
  const proxy = await startFaultProxy(cp.kubeConfig);
  const informer = new Informer<KubernetesObject>({
    kubeConfig: proxy.kubeConfig,
    resource: VMS,
    notServedAsEmpty: true,
    notServedRetryMs: 50,
    backoffBaseMs: 20,
    backoffMaxMs: 200,
    ...options,
  });
  onCleanup(async () => {
    await informer.stop();
    await proxy.close();
  });
  return { proxy, informer };
}

const isList =
  (path: string) =>
  (r: ProxiedRequest): boolean =>
    r.path === path && !r.watch;
const isWatch =
  (path: string) =>
  (r: ProxiedRequest): boolean =>
    r.path === path && r.watch;
/** Lists of `path` the API server answered 200 among `requests`. */
const listed = (requests: readonly ProxiedRequest[], path = VMS_PATH): number =>
  requests.filter((r) => isList(path)(r) && r.status === 200).length;

describe('Informer behind a fault proxy', () => {
  it('a 404 for a resource discovery still lists (a proxy in between, kubernetes#115241) keeps the cache and makes it unsynced (readers refuse) until a list succeeds', async () => {
    const logs = captureLogger();
    const { proxy, informer } = await throughProxy({ logger: logs.logger });
    const deleted: string[] = [];
    informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
    await informer.start();
    assert.isTrue(informer.hasSynced);
    assert.ok(informer.get('default', 'vm1'));

    proxy.inject({ path: VMS_PATH }, { answer: 404 });
    await eventually(() => !informer.hasSynced, 20_000, 'not synced after the unconfirmed 404');
    assert.ok(informer.get('default', 'vm1'), 'the VM that uses the PVC is still known');
    assert.deepStrictEqual(deleted, [], 'no delete events: the cache was not emptied');
    assert.isTrue(informer.served);
    assert.ok(
      proxy.requests.some((r) => r.path === VMS_DISCOVERY && r.status === 200 && !r.injected),
      "the API server's discovery was asked (and lists virtualmachines)",
    );

    proxy.inject({ path: VMS_DISCOVERY }, { answer: 500, message: 'etcd timeout' });
    const failing = proxy.requests.length;
    // The informer has taken a discovery answered 500 once it lists again after it.
    await eventually(
      () => {
        const since = proxy.requests.slice(failing);
        const failed = since.findIndex((r) => r.path === VMS_DISCOVERY && r.status === 500);
        return failed >= 0 && since.slice(failed + 1).some(isList(VMS_PATH));
      },
      20_000,
      'a list after a failed discovery',
    );
    assert.isFalse(informer.hasSynced, 'discovery that cannot be read confirms nothing');
    assert.ok(informer.get('default', 'vm1'));
    assert.ok(
      logs
        .lines()
        .some((l) => l['msg'] === 'discovery failed after a 404; keeping the cache, not synced'),
    );

    const healed = proxy.requests.length;
    proxy.heal();
    await eventually(() => informer.hasSynced, 20_000, 'synced again after a successful list');
    assert.ok(listed(proxy.requests.slice(healed)) > 0);
    assert.ok(informer.get('default', 'vm1'));
    assert.deepStrictEqual(deleted, []);
  });

  describe('a 404 that discovery confirms (the CRD deleted: its resource gone from its group, or the whole group/version gone) empties the cache, which counts as synced', () => {
    const variants = [
      {
        name: 'the group still serves another resource',
        crd: testCrd('leftover.voe.test', 'widgets', 'Widget'),
        others: [testCrd('leftover.voe.test', 'gadgets', 'Gadget')],
        discovery: 200,
      },
      {
        name: 'the group/version is no longer served',
        crd: testCrd('gone.voe.test', 'widgets', 'Widget'),
        others: [],
        discovery: 404,
      },
    ];
    for (const variant of variants) {
      it(variant.name, async () => {
        const resource = resourceOf(variant.crd);
        const path = `/apis/${resource.group}/v1/${resource.plural}`;
        await installCrds(cp.kubeConfig, [variant.crd, ...variant.others]);
        await cp.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
          ...resource,
          namespace: 'default',
          body: { apiVersion: `${resource.group}/v1`, kind: 'Widget', metadata: { name: 'w1' } },
        });
        const { proxy, informer } = await throughProxy({ resource });
        const served: boolean[] = [];
        const deleted: string[] = [];
        informer.on('served', (s) => served.push(s));
        informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
        await informer.start();
        assert.ok(informer.get('default', 'w1'));

        // While the CRD is deleted the informer's requests for widgets fail (500), so that it does not
        // see the deletion as it happens (the watch's DELETED events): what empties its cache is the
        // list answered 404 afterwards, that discovery confirms.
        proxy.inject({ path }, { answer: 500 });
        await deleteCrd(cp.kubeConfig, variant.crd);
        assert.deepStrictEqual(deleted, [], 'nothing seen of the deletion yet');
        const healed = proxy.requests.length;
        proxy.heal();

        await eventually(() => informer.served === false, 20_000, 'not served');
        assert.isUndefined(informer.get('default', 'w1'));
        assert.deepStrictEqual(deleted, ['w1'], 'the cached widget delivered as deleted');
        assert.isTrue(informer.hasSynced);
        assert.deepStrictEqual(served, [true, false]);
        const since = proxy.requests.slice(healed);
        assert.ok(
          since.some((r) => isList(path)(r) && r.status === 404 && !r.injected),
          'the API server itself answered the list 404',
        );
        assert.ok(
          since.some(
            (r) =>
              r.path === `/apis/${resource.group}/v1` &&
              r.status === variant.discovery &&
              !r.injected,
          ),
          `the API server's discovery itself answered ${variant.discovery}`,
        );
      });
    }
  });

  it('a failed watch (500) is followed by a new list, as client-go does, not by watching the same resourceVersion forever', async () => {
    const { proxy, informer } = await throughProxy();
    await informer.start();
    const failing = proxy.requests.length;
    proxy.inject({ path: VMS_PATH, watch: true }, { answer: 500 });
    await eventually(
      () => listed(proxy.requests.slice(failing)) >= 2,
      20_000,
      'lists again after failed watches',
    );
    const sequence = proxy.requests
      .slice(failing)
      .filter((r) => r.path === VMS_PATH)
      .map((r) => `${r.watch ? 'watch' : 'list'} ${r.status ?? '...'}`);
    sequence.forEach((step, i) => {
      if (step === 'watch 500' && i + 1 < sequence.length)
        assert.match(
          sequence[i + 1] ?? '',
          /^list/,
          `a list follows each failed watch: ${sequence.join(', ')}`,
        );
    });
    assert.isTrue(informer.hasSynced);
  });

  it('a malformed watch event ends that watch (listed again) instead of crashing the process', async () => {
    const { proxy, informer } = await throughProxy();
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    const malformed = proxy.requests.length;
    proxy.inject(
      { path: VMS_PATH, watch: true },
      { prependLine: '{"type":"MODIFIED","object":null}' },
    );
    await eventually(() => listed(proxy.requests.slice(malformed)) >= 2, 20_000, 'listed again');
    assert.ok(
      errors.some((e) => /malformed watch event/.test(String((e as Error).message))),
      String(errors[0]),
    );
    assert.ok(informer.get('default', 'vm1'));
    assert.isTrue(informer.hasSynced);
  });

  it('a watch that ends at once without an event is followed by a list, as client-go does; the cache counts as in sync again only once that list succeeded', async () => {
    const { proxy, informer } = await throughProxy();
    const transitions: boolean[] = [];
    informer.on('inSync', (inSync) => transitions.push(inSync));
    await informer.start();
    assert.isTrue(informer.inSync);
    const cut = proxy.requests.length;
    proxy.inject({ path: VMS_PATH, watch: true }, { cutAfterEvents: 0 });
    await eventually(() => !informer.inSync, 20_000, 'out of sync after a watch ended at once');
    assert.match(informer.outOfSync?.why ?? '', /watch closed immediately without events/);
    await eventually(
      () => listed(proxy.requests.slice(cut)) >= 2,
      20_000,
      'listed again after such watches',
    );
    const version = await cluster.patchCustom(KINDS.vms, 'vm1', {
      metadata: { labels: { seen: 'after-heal' } },
    });
    proxy.heal();
    await eventually(
      () =>
        informer.inSync && informer.get('default', 'vm1')?.metadata?.resourceVersion === version,
      20_000,
      'in sync with the change',
    );
    assert.isFalse(transitions[0]);
    assert.isTrue(transitions.at(-1));
    assert.isUndefined(informer.outOfSync);
  });

  // The two tests below run the informer on a TestClock: its time stands still, so every watch ends
  // "at once" by the informer's measure, and a backoff passes only when the test advances the clock.
  // What they check is the order of things: the informer asks for a delay, and opens no watch until
  // that delay has passed.

  it('a watch that ends right after an event is reopened only after backoffBaseMs, each time: no tight reconnect loop', async () => {
    const clock = new TestClock();
    const { proxy, informer } = await throughProxy({
      clock,
      backoffBaseMs: 100,
      backoffMaxMs: 400,
    });
    proxy.inject({ path: VMS_PATH, watch: true }, { cutAfterEvents: 1 });
    const watches = (): number => proxy.requests.filter(isWatch(VMS_PATH)).length;
    await informer.start();
    for (let round = 1; round <= 3; round++) {
      await eventually(() => watches() === round, 20_000, `watch ${round} open`);
      await cluster.patchCustom(KINDS.vms, 'vm1', {
        metadata: { labels: { round: String(round) } },
      });
      await eventually(
        () => clock.pendingTimers > 0,
        20_000,
        `the informer waits after watch ${round} ended`,
      );
      assert.strictEqual(
        informer.get('default', 'vm1')?.metadata?.labels?.['round'],
        String(round),
        "the watch's event was taken",
      );
      assert.deepStrictEqual(
        clock.pendingDelays,
        [100],
        'it waits backoffBaseMs (the same each time: an event was seen, nothing failed)',
      );
      await clock.advance(99);
      assert.strictEqual(watches(), round, 'no watch opened before the delay has passed');
      await clock.advance(1);
    }
    await eventually(() => watches() === 4, 20_000, 'watch 4 opened once the third delay passed');
    assert.strictEqual(
      listed(proxy.requests),
      1,
      'watched on from the last event, never listed again',
    );
  });

  it('watches that end at once without an event are reopened after a backoff that grows (jittered exponential, capped at backoffMaxMs)', async () => {
    const clock = new TestClock();
    // random 1: the top of each jitter range, so the delays are base * 2^(n-1) exactly.
    const { proxy, informer } = await throughProxy({
      clock,
      backoffBaseMs: 100,
      backoffMaxMs: 400,
      random: () => 1,
    });
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    proxy.inject({ path: VMS_PATH, watch: true }, { cutAfterEvents: 0 });
    const watches = (): number => proxy.requests.filter(isWatch(VMS_PATH)).length;
    await informer.start();
    const delays: number[] = [];
    for (let round = 1; round <= 5; round++) {
      await eventually(
        () => clock.pendingTimers > 0,
        20_000,
        `the informer waits after watch ${round} ended`,
      );
      assert.strictEqual(watches(), round, 'one watch per delay');
      assert.strictEqual(
        errors.length,
        round,
        'each watch that ended at once counted as a failure',
      );
      const [delay = 0, ...more] = clock.pendingDelays;
      assert.deepStrictEqual(more, []);
      delays.push(delay);
      await clock.advance(delay - 1);
      assert.strictEqual(watches(), round, 'no watch opened before the delay has passed');
      await clock.advance(1);
    }
    assert.deepStrictEqual(delays, [100, 200, 400, 400, 400]);
    assert.match(String((errors[0] as Error).message), /watch closed immediately without events/);
  });
});
