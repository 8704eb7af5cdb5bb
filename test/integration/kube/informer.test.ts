import { describe, it, after } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import {
  ApiextensionsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubernetesObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { Informer } from '../../../src/kube/index.js';
import { installCrds, type ControlPlane } from '../../../src/controlplane/index.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { eventually } from '../../support/eventually.js';
import { TestClock } from '../../support/test-clock.js';

const cp: ControlPlane = await useControlPlane({ crds: false });
const core = cp.kubeConfig.makeApiClient(CoreV1Api);
const started: Informer<V1ConfigMap>[] = [];

async function namespace(name: string): Promise<string> {
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}

function track(inf: Informer<V1ConfigMap>): { log: string[]; errors: unknown[] } {
  const log: string[] = [];
  const errors: unknown[] = [];
  inf.on('add', (o) => log.push(`add ${o.metadata?.name} ${JSON.stringify(o.data ?? {})}`));
  inf.on('update', (o) => log.push(`update ${o.metadata?.name} ${JSON.stringify(o.data ?? {})}`));
  inf.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
  inf.on('error', (e) => errors.push(e));
  return { log, errors };
}

function configMaps(namespace: string, clock?: TestClock): Informer<V1ConfigMap> {
  const inf = new Informer<V1ConfigMap>({
    kubeConfig: cp.kubeConfig,
    resource: { group: '', version: 'v1', plural: 'configmaps', namespace },
    backoffBaseMs: 100,
    backoffMaxMs: 1000,
    ...(clock ? { clock } : {}),
  });
  started.push(inf);
  return inf;
}

const data = (inf: Informer<V1ConfigMap>, ns: string): Record<string, unknown> =>
  Object.fromEntries(
    inf
      .list(ns)
      .map((o) => [o.metadata?.name ?? '', o.data ?? {}] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

describe('Informer against a real API server', () => {
  after(async () => {
    for (const inf of started) await inf.stop();
  });

  it('synced resolves after the first list; creates, updates and deletes arrive as events and in the cache and indexes', async () => {
    const ns = await namespace('inf-basic');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'pre', labels: { pvc: 'p1' } }, data: { v: '0' } },
    });
    const inf = configMaps(ns);
    inf.addIndex('byPvc', (o) => (o.metadata?.labels?.pvc ? [o.metadata.labels.pvc] : []));
    const { log } = track(inf);
    assert.isFalse(inf.hasSynced);
    await inf.start();
    assert.isTrue(inf.hasSynced);
    assert.strictEqual(inf.get(ns, 'pre')?.data?.v, '0');
    assert.strictEqual(inf.get(ns, 'pre')?.kind, 'ConfigMap', 'listed items carry kind');
    assert.deepStrictEqual(
      inf.byIndex('byPvc', 'p1').map((o) => o.metadata?.name),
      ['pre'],
    );

    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'a', labels: { pvc: 'p1' } }, data: { v: '1' } },
    });
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: 'a',
      body: [{ op: 'replace', path: '/data/v', value: '2' }],
    });
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: 'a',
      body: [{ op: 'replace', path: '/metadata/labels/pvc', value: 'p2' }],
    });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'pre' });
    await eventually(() => log.includes('delete pre'), 20_000, 'delete event');
    assert.deepStrictEqual(log, [
      'add pre {"v":"0"}',
      'add a {"v":"1"}',
      'update a {"v":"2"}',
      'update a {"v":"2"}',
      'delete pre',
    ]);
    assert.deepStrictEqual(data(inf, ns), { a: { v: '2' } });
    assert.deepStrictEqual(inf.byIndex('byPvc', 'p1'), [], 'index follows updates and deletes');
    assert.deepStrictEqual(
      inf.byIndex('byPvc', 'p2').map((o) => o.metadata?.name),
      ['a'],
    );
    assert.strictEqual(inf.getByKey(`${ns}/a`)?.data?.v, '2');
  });

  it('transform: every listed and watched object (added, modified, deleted) is cached, indexed and handed to handlers as transformed', async () => {
    const ns = await namespace('inf-transform');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: { name: 'pre', labels: { pvc: 'p1' } },
        data: { keep: 'k0', big: 'x'.repeat(1000) },
      },
    });
    const seen: Array<Record<string, unknown>> = [];
    // Keeps what a reader needs (name, namespace, resourceVersion, one label, one key), as a lean cache would.
    const lean = (object: KubernetesObject): KubernetesObject => {
      const source = object as V1ConfigMap;
      seen.push(object as unknown as Record<string, unknown>);
      return {
        apiVersion: source.apiVersion,
        kind: source.kind,
        metadata: {
          name: source.metadata?.name,
          namespace: source.metadata?.namespace,
          resourceVersion: source.metadata?.resourceVersion,
          labels: { pvc: source.metadata?.labels?.pvc ?? '' },
        },
        data: { keep: source.data?.keep ?? '' },
      } as V1ConfigMap;
    };
    const inf = new Informer<V1ConfigMap>({
      kubeConfig: cp.kubeConfig,
      resource: { group: '', version: 'v1', plural: 'configmaps', namespace: ns },
      backoffBaseMs: 100,
      backoffMaxMs: 1000,
      transform: lean,
    });
    started.push(inf);
    inf.addIndex('byPvc', (o) => (o.metadata?.labels?.pvc ? [o.metadata.labels.pvc] : []));
    const { log } = track(inf);
    const deleted: V1ConfigMap[] = [];
    inf.on('delete', (o) => deleted.push(o));
    await inf.start();
    assert.deepStrictEqual(inf.get(ns, 'pre')?.data, { keep: 'k0' }, 'listed: transformed');
    assert.strictEqual(
      inf.get(ns, 'pre')?.kind,
      'ConfigMap',
      'the list item carries kind before the transform',
    );
    assert.isUndefined(inf.get(ns, 'pre')?.metadata?.uid);

    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: { name: 'a', labels: { pvc: 'p1' } },
        data: { keep: 'k1', big: 'y'.repeat(1000) },
      },
    });
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: 'a',
      body: [{ op: 'replace', path: '/metadata/labels/pvc', value: 'p2' }],
    });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'pre' });
    await eventually(() => log.includes('delete pre'), 20_000, 'delete event');
    assert.deepStrictEqual(
      log,
      ['add pre {"keep":"k0"}', 'add a {"keep":"k1"}', 'update a {"keep":"k1"}', 'delete pre'],
      'handlers get the transformed objects',
    );
    assert.deepStrictEqual(
      deleted.map((o) => o.data),
      [{ keep: 'k0' }],
      'a deleted object too',
    );
    assert.deepStrictEqual(Object.keys(inf.get(ns, 'a')?.metadata ?? {}).sort(), [
      'labels',
      'name',
      'namespace',
      'resourceVersion',
    ]);
    assert.deepStrictEqual(
      inf.byIndex('byPvc', 'p1'),
      [],
      'indexed from the transformed object, and follows it',
    );
    assert.deepStrictEqual(
      inf.byIndex('byPvc', 'p2').map((o) => o.metadata?.name),
      ['a'],
    );
    // The transform saw the API server's objects: list item, ADDED, MODIFIED and DELETED.
    assert.ok(seen.length >= 4);
    assert.ok(
      seen.every((object) => typeof (object['data'] as Record<string, string>)['big'] === 'string'),
    );
  });

  it('survives a kube-apiserver restart and converges, including changes made while it was disconnected', async () => {
    const ns = await namespace('inf-restart');
    for (const n of ['keep', 'change', 'remove'])
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: n }, data: { v: '1' } },
      });
    const clock = new TestClock();
    clock.followRealTime();
    const inf = configMaps(ns, clock);
    const { log, errors } = track(inf);
    const transitions: boolean[] = [];
    inf.on('inSync', (inSync) => transitions.push(inSync));
    await inf.start();
    log.length = 0;

    clock.standStill(); // the informer's restart backoff waits until time moves again
    await cp.stopApiServer();
    try {
      await eventually(
        () => errors.length > 0 && clock.pendingTimers > 0,
        30_000,
        'informer to notice the outage and back off',
      );
    } finally {
      await cp.startApiServer();
    }
    // Changes while the informer is still disconnected.
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'remove' });
    await core.replaceNamespacedConfigMap({
      namespace: ns,
      name: 'change',
      body: { metadata: { name: 'change' }, data: { v: '2' } },
    });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'new' }, data: { v: '1' } },
    });
    assert.strictEqual(log.length, 0, 'nothing seen while disconnected');
    assert.isFalse(inf.inSync, 'the cache says it may be stale');
    assert.isTrue(inf.hasSynced);
    clock.followRealTime();

    await eventually(
      () =>
        JSON.stringify(data(inf, ns)) ===
        JSON.stringify({ change: { v: '2' }, keep: { v: '1' }, new: { v: '1' } }),
      30_000,
      'cache to converge',
    );
    assert.deepStrictEqual([...log].sort(), [
      'add new {"v":"1"}',
      'delete remove',
      'update change {"v":"2"}',
    ]);
    await eventually(() => inf.inSync, 10_000, 'in sync again');
    assert.deepStrictEqual(transitions, [false, true]);
    // and keeps watching afterwards
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'keep' });
    await eventually(() => log.includes('delete keep'), 20_000, 'delete after recovery');
  });

  interface EtcdHeader {
    header: { revision: string };
  }
  async function etcd<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(`${cp.etcdUrl}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    assert.strictEqual(res.status, 200, `${path}: ${await res.clone().text()}`);
    return (await res.json()) as T;
  }
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  /**
   * Stops kube-apiserver once the informer noticed (its backoff waits on `clock`, which now stands
   * still), moves etcd past `rvBefore` and compacts all history up to now, then starts it again:
   * neither the apiserver's fresh watch cache nor etcd can replay from rvBefore, so the informer's
   * next watch gets 410 Gone. Keys written are `/voe-test/<tag>-<i>`. The clock stands still until
   * the test lets it follow real time again.
   */
  async function restartCompactingPast(
    rvBefore: number,
    clock: TestClock,
    errors: unknown[],
    tag: string,
  ): Promise<void> {
    clock.standStill();
    await cp.stopApiServer();
    try {
      await eventually(
        () => errors.length > 0 && clock.pendingTimers > 0,
        30_000,
        'informer to back off',
      );
      for (let i = 0; i < 3; i++)
        await etcd('/v3/kv/put', { key: b64(`/voe-test/${tag}-${i}`), value: b64('x') });
      const { header } = await etcd<EtcdHeader>('/v3/kv/range', { key: b64(`/voe-test/${tag}-0`) });
      assert.ok(Number(header.revision) > rvBefore + 2);
      await etcd('/v3/kv/compaction', { revision: header.revision, physical: true });
    } finally {
      await cp.startApiServer();
    }
  }

  it('a too-old resourceVersion (410 Gone after etcd compaction) leads to a relist that delivers the difference', async () => {
    const ns = await namespace('inf-gone');
    for (const n of ['stay', 'go'])
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: n }, data: { v: '1' } },
      });
    const clock = new TestClock();
    clock.followRealTime();
    const inf = configMaps(ns, clock);
    const { log, errors } = track(inf);
    const syncs: boolean[] = [];
    inf.on('sync', (s) => syncs.push(s.relist));
    await inf.start();
    const rvBefore = Number(inf.stats.resourceVersion);
    log.length = 0;

    await restartCompactingPast(rvBefore, clock, errors, 'bump');
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'go' });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'late' }, data: { v: '1' } },
    });
    const relistsBefore = inf.stats.relists;
    clock.followRealTime();

    await eventually(() => inf.stats.relists > relistsBefore, 30_000, 'a relist');
    await eventually(
      () =>
        JSON.stringify(data(inf, ns)) === JSON.stringify({ late: { v: '1' }, stay: { v: '1' } }),
      30_000,
      'cache to converge',
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}: cache ${JSON.stringify(data(inf, ns))} log ${JSON.stringify(log)} stats ${JSON.stringify(inf.stats)} errors ${errors.map(String).join(' | ')}`,
      );
    });
    assert.deepStrictEqual([...log].sort(), ['add late {"v":"1"}', 'delete go']);
    assert.deepStrictEqual(syncs, [false, true], 'first list, then exactly one relist');
    assert.isTrue(inf.inSync);
  });

  it('a relist after 410 Gone keeps the indexes consistent: an object deleted meanwhile leaves them, one whose indexed key changed moves, many updates arrive as their last state', async () => {
    const ns = await namespace('inf-gone-index');
    const create = (name: string, pvc: string) =>
      core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name, labels: { pvc } }, data: { v: '0' } },
      });
    await create('a', 'pa');
    await create('b', 'pb');
    await create('c', 'pc');
    const clock = new TestClock();
    clock.followRealTime();
    const inf = configMaps(ns, clock);
    inf.addIndex('byPvc', (o) => (o.metadata?.labels?.pvc ? [o.metadata.labels.pvc] : []));
    const { errors } = track(inf);
    await inf.start();
    const index = (): Record<string, string[]> =>
      Object.fromEntries(
        ['pa', 'pb', 'pb2', 'pc', 'pd'].map((k) => [
          k,
          inf
            .byIndex('byPvc', k)
            .map((o) => o.metadata?.name ?? '')
            .sort(),
        ]),
      );
    const rvBefore = Number(inf.stats.resourceVersion);

    await restartCompactingPast(rvBefore, clock, errors, 'index-bump');
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: 'b',
      body: [{ op: 'replace', path: '/metadata/labels/pvc', value: 'pb2' }],
    });
    await create('d', 'pd');
    for (let i = 1; i <= 30; i++)
      await core.patchNamespacedConfigMap({
        namespace: ns,
        name: 'c',
        body: [{ op: 'replace', path: '/data/v', value: String(i) }],
      });
    const live = await core.readNamespacedConfigMap({ namespace: ns, name: 'c' });
    const relists = inf.stats.relists;
    clock.followRealTime();

    await eventually(() => inf.stats.relists > relists && inf.inSync, 30_000, 'relisted');
    assert.deepStrictEqual(index(), { pa: [], pb: [], pb2: ['b'], pc: ['c'], pd: ['d'] });
    assert.deepStrictEqual(inf.keys().sort(), [`${ns}/b`, `${ns}/c`, `${ns}/d`]);
    assert.strictEqual(inf.get(ns, 'c')?.metadata?.resourceVersion, live.metadata?.resourceVersion);
    assert.strictEqual(inf.get(ns, 'c')?.data?.v, '30');
    // Watching again: the key moves back and the object is deleted.
    await core.patchNamespacedConfigMap({
      namespace: ns,
      name: 'b',
      body: [{ op: 'replace', path: '/metadata/labels/pvc', value: 'pb' }],
    });
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'd' });
    await eventually(
      () => inf.get(ns, 'd') === undefined && inf.byIndex('byPvc', 'pb').length === 1,
      20_000,
      'watched changes',
    );
    assert.deepStrictEqual(index(), { pa: [], pb: ['b'], pb2: [], pc: ['c'], pd: [] });
  });

  it('stop() before the first list rejects synced and leaves nothing running', async () => {
    const inf = new Informer<V1ConfigMap>({
      kubeConfig: cp.kubeConfig,
      resource: { group: '', version: 'v1', plural: 'configmaps', namespace: 'default' },
    });
    const synced = inf.start();
    await inf.stop();
    await expectRejection(synced, /stopped before its first list|KUBE_INFORMER_STOPPED/);
  });

  it('notServedAsEmpty: a resource the API server does not serve (no CRD) is synced and empty, fills once its CRD is installed, empties when it is deleted', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.test.voe.dev' },
      spec: {
        group: 'test.voe.dev',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        ],
      },
    };
    const resource = { group: 'test.voe.dev', version: 'v1', plural: 'widgets' };
    const widgets = new Informer<KubernetesObject>({
      kubeConfig: cp.kubeConfig,
      resource,
      notServedAsEmpty: true,
      notServedRetryMs: 200,
      backoffBaseMs: 100,
      backoffMaxMs: 1000,
    });
    const strict = new Informer<KubernetesObject>({
      kubeConfig: cp.kubeConfig,
      resource,
      backoffBaseMs: 100,
      backoffMaxMs: 1000,
    });
    started.push(
      widgets as unknown as Informer<V1ConfigMap>,
      strict as unknown as Informer<V1ConfigMap>,
    );
    const served: boolean[] = [];
    const log: string[] = [];
    const strictErrors: unknown[] = [];
    widgets.on('served', (s) => served.push(s));
    widgets.on('add', (o) => log.push(`add ${o.metadata?.name}`));
    widgets.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
    strict.on('error', (e) => strictErrors.push(e));

    await widgets.start();
    assert.isTrue(widgets.hasSynced);
    assert.isFalse(widgets.served);
    assert.deepStrictEqual(widgets.list(), []);
    assert.deepStrictEqual(served, [false]);
    // Without the option a 404 is a failure like any other: never synced, retried.
    void strict.start().catch(() => undefined);
    await eventually(() => strictErrors.length > 0, 10_000, 'the strict informer fails');
    assert.isFalse(strict.hasSynced);
    assert.isUndefined(strict.served);
    assert.strictEqual((strictErrors[0] as { code?: number }).code, 404);

    await installCrds(cp.kubeConfig, [crd]);
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      ...resource,
      namespace: 'default',
      body: { apiVersion: 'test.voe.dev/v1', kind: 'Widget', metadata: { name: 'w1' } },
    });
    await eventually(
      () => widgets.get('default', 'w1') !== undefined,
      20_000,
      'the widget in the cache once the CRD is served',
    );
    assert.isTrue(widgets.served);
    assert.deepStrictEqual(served, [false, true]);
    await eventually(() => strict.hasSynced, 20_000, 'the strict informer syncs once served');
    await custom.createNamespacedCustomObject({
      ...resource,
      namespace: 'default',
      body: { apiVersion: 'test.voe.dev/v1', kind: 'Widget', metadata: { name: 'w2' } },
    });
    await eventually(
      () => widgets.get('default', 'w2') !== undefined,
      20_000,
      'watched after the list',
    );

    await cp.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: crd.metadata.name });
    await eventually(
      () => widgets.served === false && widgets.list().length === 0,
      30_000,
      'empty and not served after the CRD is deleted',
    );
    assert.deepStrictEqual(served, [false, true, false]);
    assert.deepStrictEqual([...log].sort(), ['add w1', 'add w2', 'delete w1', 'delete w2']);
    assert.isTrue(widgets.hasSynced);
  });

  it("a list and watch refused after the first sync (the reader's RBAC revoked) leave the cache out of sync until a list succeeds; what changed meanwhile arrives then", async () => {
    const ns = await namespace('inf-rbac');
    const user = 'inf-reader';
    const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const authorization = cp.kubeConfig.makeApiClient(AuthorizationV1Api);
    const mayList = async (): Promise<boolean> =>
      (
        await authorization.createSubjectAccessReview({
          body: {
            spec: {
              user,
              groups: ['system:authenticated'],
              resourceAttributes: { resource: 'configmaps', verb: 'list', namespace: ns },
            },
          },
        })
      ).status?.allowed === true;
    const binding = {
      metadata: { name: 'cm-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
    };
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'cm-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({ namespace: ns, body: binding });
    await eventually(mayList, 20_000, 'the role applies');
    for (const n of ['keep', 'remove'])
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: n }, data: { v: '1' } },
      });
    const { kubeConfig } = await cp.mintKubeConfig(user);
    // Watches end every 2 s (RBAC is checked when a request starts, so an open watch outlives the revocation).
    const inf = new Informer<V1ConfigMap>({
      kubeConfig,
      resource: { group: '', version: 'v1', plural: 'configmaps', namespace: ns },
      watchTimeoutSeconds: 2,
      backoffBaseMs: 100,
      backoffMaxMs: 500,
    });
    started.push(inf);
    const transitions: boolean[] = [];
    inf.on('inSync', (inSync) => transitions.push(inSync));
    const outOfSync = (): { since: number; why: string } | undefined => inf.outOfSync;
    const { log } = track(inf);
    await inf.start();
    assert.isTrue(inf.inSync);
    assert.isUndefined(outOfSync());
    log.length = 0;

    await rbac.deleteNamespacedRoleBinding({ namespace: ns, name: 'cm-reader' });
    await eventually(async () => !(await mayList()), 20_000, 'the revocation applies');
    await eventually(
      () => !inf.inSync,
      30_000,
      'out of sync once its next watch and list are refused',
    );
    assert.isTrue(inf.hasSynced, "listed once: hasSynced stays true, as client-go's");
    assert.deepStrictEqual(transitions, [false]);
    assert.match(
      outOfSync()?.why ?? '',
      new RegExp(
        `^403 Forbidden: configmaps is forbidden: User "${user}" cannot (list|watch) resource "configmaps"`,
      ),
    );
    assert.ok(typeof outOfSync()?.since === 'number');
    // Meanwhile the cache keeps what it had and misses what changes.
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'remove' });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'new' }, data: { v: '1' } },
    });
    assert.deepStrictEqual(data(inf, ns), { keep: { v: '1' }, remove: { v: '1' } });
    assert.isFalse(inf.inSync);

    await rbac.createNamespacedRoleBinding({ namespace: ns, body: binding });
    await eventually(() => inf.inSync, 30_000, 'in sync once a list succeeds again');
    assert.deepStrictEqual(data(inf, ns), { keep: { v: '1' }, new: { v: '1' } });
    assert.deepStrictEqual([...log].sort(), ['add new {"v":"1"}', 'delete remove']);
    assert.deepStrictEqual(transitions, [false, true]);
    assert.isUndefined(outOfSync());
  });
});
