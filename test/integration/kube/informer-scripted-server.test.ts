import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Informer } from '../../../src/kube/index.js';
import { eventually } from '../../support/held-clock.js';
import { scriptedHttpServer } from '../../support/scripted-http-server.js';

/**
 * A scripted API server for one custom resource, to make it answer what a real one only answers
 * rarely: a 404 for a resource it serves (kubernetes#115241, a proxy in front of it), while
 * discovery still lists the resource; and, for comparison, a CRD that is really gone. Also
 * watches that fail (500), carry a malformed event, or end after one event each time.
 */
async function scriptedApiServer(t: { after: (fn: () => Promise<void>) => void }, tuning: { backoffBaseMs?: number } = {}) {
  const state = {
    list: 'ok' as 'ok' | '404', discovery: 'lists' as 'lists' | 'absent' | '404' | '500',
    watch: 'end' as 'end' | 'malformed' | '500' | 'one-event', lists: 0, watches: 0,
  };
  const kubeConfig = await scriptedHttpServer(t, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://scripted');
    const json = (code: number, body: unknown): void => { res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body)); };
    const notFound = (): void => json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
    if (url.pathname === '/apis/kubevirt.io/v1') {
      if (state.discovery === '404') { notFound(); return; }
      if (state.discovery === '500') { json(500, { kind: 'Status', status: 'Failure', code: 500, message: 'etcd timeout' }); return; }
      json(200, { kind: 'APIResourceList', groupVersion: 'kubevirt.io/v1', resources: state.discovery === 'lists' ? [{ name: 'virtualmachines', namespaced: true, kind: 'VirtualMachine' }, { name: 'virtualmachines/status' }] : [{ name: 'virtualmachineinstances' }] });
      return;
    }
    if (url.pathname === '/apis/kubevirt.io/v1/virtualmachines') {
      if (state.list === '404') { notFound(); return; }
      if (url.searchParams.get('watch') === 'true') {
        state.watches++;
        if (state.watch === '500') { json(500, { kind: 'Status', status: 'Failure', code: 500, message: 'internal error' }); return; }
        res.writeHead(200, { 'content-type': 'application/json' });
        if (state.watch === 'malformed') res.write('{"type":"MODIFIED","object":null}\n');
        if (state.watch === 'one-event') res.write(`${JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'vm1', namespace: 'default', resourceVersion: '10' } } })}\n`);
        res.end();
        return;
      }
      state.lists++;
      json(200, { kind: 'VirtualMachineList', apiVersion: 'kubevirt.io/v1', metadata: { resourceVersion: '10' },
        items: [{ metadata: { name: 'vm1', namespace: 'default', resourceVersion: '10' } }] });
      return;
    }
    notFound();
  });
  const informer = new Informer<KubernetesObject>({
    kubeConfig, resource: { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' },
    notServedAsEmpty: true, notServedRetryMs: 20, backoffBaseMs: tuning.backoffBaseMs ?? 5, backoffMaxMs: 20,
  });
  t.after(() => informer.stop());
  return { state, informer };
}

test('a 404 for a resource discovery still lists keeps the cache and makes it unsynced (readers refuse) until a list succeeds', async (t) => {
  const { state, informer } = await scriptedApiServer(t);
  const deleted: string[] = [];
  informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
  await informer.start();
  assert.equal(informer.hasSynced, true);
  assert.ok(informer.get('default', 'vm1'));

  state.list = '404';
  await eventually(() => !informer.hasSynced, 5_000, 'not synced after the unconfirmed 404');
  assert.ok(informer.get('default', 'vm1'), 'the VM that uses the PVC is still known');
  assert.deepEqual(deleted, [], 'no delete events: the cache was not emptied');
  assert.equal(informer.served, true);

  state.discovery = '500';
  const listsBefore = state.lists;
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(informer.hasSynced, false, 'discovery that cannot be read confirms nothing');
  assert.ok(informer.get('default', 'vm1'));

  state.discovery = 'lists';
  state.list = 'ok';
  await eventually(() => informer.hasSynced, 5_000, 'synced again after a successful list');
  assert.ok(state.lists > listsBefore);
  assert.ok(informer.get('default', 'vm1'));
  assert.deepEqual(deleted, []);
});

test('a 404 that discovery confirms (the resource, or its whole group/version, no longer served) empties the cache, which counts as synced', async (t) => {
  for (const discovery of ['absent', '404'] as const) {
    await t.test(`discovery ${discovery}`, async (tt) => {
      const { state, informer } = await scriptedApiServer(tt);
      await informer.start();
      assert.ok(informer.get('default', 'vm1'));
      state.discovery = discovery;
      state.list = '404';
      await eventually(() => informer.served === false, 5_000, 'not served');
      assert.equal(informer.get('default', 'vm1'), undefined);
      assert.equal(informer.hasSynced, true);
    });
  }
});

test('a failed watch (500) is followed by a new list, as client-go does, not by watching the same resourceVersion forever', async (t) => {
  const { state, informer } = await scriptedApiServer(t);
  await informer.start();
  const lists = state.lists;
  state.watch = '500';
  await eventually(() => state.lists >= lists + 2, 5_000, 'lists again after failed watches');
  assert.equal(informer.hasSynced, true);
});

test('a malformed watch event ends that watch (listed again) instead of crashing the process', async (t) => {
  const { state, informer } = await scriptedApiServer(t);
  const errors: unknown[] = [];
  informer.on('error', (e) => errors.push(e));
  await informer.start();
  const lists = state.lists;
  state.watch = 'malformed';
  await eventually(() => state.lists >= lists + 2, 5_000, 'listed again');
  assert.ok(errors.some((e) => /malformed watch event/.test(String((e as Error).message))), String(errors[0]));
  assert.ok(informer.get('default', 'vm1'));
});

test('watches that each end at once after an event do not become a tight reconnect loop', async (t) => {
  const { state, informer } = await scriptedApiServer(t, { backoffBaseMs: 100 });
  state.watch = 'one-event';
  await informer.start();
  const watches = state.watches;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  // At least 100 ms between such watches: about 10 in a second, not thousands.
  assert.ok(state.watches - watches <= 15, `${state.watches - watches} watches in 1 s`);
  assert.ok(state.watches - watches >= 3, 'it keeps watching');
});
