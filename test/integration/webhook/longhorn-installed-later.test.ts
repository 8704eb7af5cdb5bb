/**
 * `voe serve --longhorn auto` on a cluster where Longhorn is installed after voe started (and
 * uninstalled again), through the real kube-apiserver: voe finds Longhorn's API by discovery
 * within its 5 s look and judges Longhorn volumes from its objects without a restart; an identity
 * without the Longhorn Role stays ready and says once what is missing.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { installCrds } from '../../../src/controlplane/index.js';
import { readCrds } from '../../../src/controlplane/install-crds.js';
import { StagedCluster } from '../../../src/demo/staged-cluster.js';
import {
  isAlreadyExists,
  isResourceServed,
  realClock,
  type Clock,
} from '../../../src/kube/index.js';
import type { PersistentVolumeClaim } from '../../../src/model/index.js';
import {
  startAdmissionCaches,
  type StartedAdmissionCaches,
} from '../../../src/host-cache/start-admission-caches.js';
import { admissionWiring } from '../../../src/webhook/admission-wiring.js';
import { serveWebhook, type ServingWebhook } from '../../../src/webhook/serve-webhook.js';
import {
  admissionRequest,
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornVersion,
  longhornVolume,
  pvc,
  PVC_KIND,
  PVC_RESOURCE,
  resized,
  storageClass,
  vm,
} from '../../support/webhook/admission-objects.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { resizeThroughApi } from '../../support/webhook/resize-through-api.js';
import { deleteCrd } from '../../support/test-crd.js';
import { beforeControlPlaneStops, useControlPlane } from '../../support/use-control-plane.js';
import { httpsRequest, writeServingFiles } from '../../support/webhook/webhook-client.js';

// KubeVirt and Harvester are there, Longhorn is not (yet).
const cp = await useControlPlane({ crds: false });
const allCrds = await readCrds();
const isLonghorn = (crd: V1CustomResourceDefinition): boolean => crd.spec.group === 'longhorn.io';
await installCrds(
  cp.kubeConfig,
  allCrds.filter((crd) => !isLonghorn(crd)),
);
const cluster = new StagedCluster(cp.kubeConfig);

/** On a v2 data engine StorageClass: judged by that parameter while Longhorn is not read (version unknown: refused). */
const V2_DISK = 'lh-v2-disk';
/** On a StorageClass that names no data engine, but Longhorn's Volume is v2 with the ublk frontend (not grown online). */
const UBLK_DISK = 'lh-ublk-disk';
const pvName = (claim: string): string => `pvc-${claim}`;
const claims = [
  pvc(V2_DISK, { className: 'longhorn-v2', volumeName: pvName(V2_DISK) }),
  pvc(UBLK_DISK, { className: 'longhorn-plain', volumeName: pvName(UBLK_DISK) }),
];
await cluster.apply({
  storageClasses: [
    storageClass('longhorn-v2', 'driver.longhorn.io', { dataEngine: 'v2' }),
    storageClass('longhorn-plain', 'driver.longhorn.io'),
  ],
  pvcs: claims,
  vms: [
    vm('lh-vm', {
      volumes: claims.map((claim, index) => ({
        name: `disk-${index}`,
        persistentVolumeClaim: { claimName: claim.metadata!.name! },
      })),
      templates: [],
    }),
  ],
  kubeVirts: [kubeVirt()],
  settings: [harvesterSetting('')],
});
await cluster.bindClaims(claims);

/** Installs Longhorn as its chart would (its CRDs), and what Longhorn's manager writes for the two volumes. */
async function installLonghorn(): Promise<void> {
  await installCrds(cp.kubeConfig, allCrds.filter(isLonghorn));
  await cluster.apply({
    longhornVolumes: [
      longhornVolume({ name: pvName(V2_DISK), dataEngine: 'v2' }),
      longhornVolume({ name: pvName(UBLK_DISK), dataEngine: 'v2', frontend: 'ublk' }),
    ],
    longhornEngines: [
      longhornEngine({ volume: pvName(V2_DISK), dataEngine: 'v2' }),
      longhornEngine({ volume: pvName(UBLK_DISK), dataEngine: 'v2' }),
    ],
    longhornSettings: [longhornVersion('v1.10.1')],
  });
}

/** Uninstalls Longhorn's API (its CRDs, and with them its objects), if installed. */
async function uninstallLonghorn(): Promise<void> {
  for (const crd of allCrds.filter(isLonghorn)) {
    if (
      await isResourceServed(cp.kubeConfig, {
        group: crd.spec.group,
        version: 'v1beta2',
        plural: crd.spec.names.plural,
      })
    )
      await deleteCrd(cp.kubeConfig, crd);
  }
}

const NOT_READ = /the Longhorn version was not read: Longhorn objects are not read/;
let size = 10;
/** Grows the claim by 1Gi through the API server (and so through the webhook): undefined when admitted, else the refusal. */
const grow = (claim: string) => resizeThroughApi(cluster, claim, `${++size}Gi`);

/** A clock that counts the timers set on it and not yet fired or cleared. */
function countingClock(): Clock & { pending: () => number } {
  const live = new Set<unknown>();
  return {
    now: () => realClock.now(),
    setTimeout: (fn, ms) => {
      const handle: unknown = realClock.setTimeout(() => {
        live.delete(handle);
        fn();
      }, ms);
      live.add(handle);
      return handle;
    },
    clearTimeout: (handle) => {
      live.delete(handle);
      realClock.clearTimeout(handle);
    },
    pending: () => live.size,
  };
}

describe('Longhorn installed, uninstalled and its Role applied while voe serves', () => {
  it('Longhorn installed after voe serve --longhorn auto started: found within the 5 s look, Longhorn volumes judged from its objects without a restart; uninstalled: not read again, and found again when reinstalled', async () => {
    await uninstallLonghorn();
    const certDir = await mkdtemp(join(tmpdir(), 'voe-longhorn-later-'));
    onCleanup(() => rm(certDir, { recursive: true, force: true }));
    const { logger, lines } = captureLogger('info');
    let started: StartedAdmissionCaches | undefined;
    const wiring = admissionWiring({ longhorn: 'auto' });
    const serving: ServingWebhook = await serveWebhook({
      kubeConfig: cp.kubeConfig,
      logger,
      host: '127.0.0.1',
      port: 0,
      dev: true,
      certDir,
      configurationName: 'voe-longhorn-later',
      cacheSyncTimeoutMs: 30_000,
      startCaches: async (config, log) => (started = await wiring.startCaches(config, log)),
      createValidators: wiring.createValidators,
    });
    beforeControlPlaneStops(() => serving.stop());
    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const get = async (path: string): Promise<string> =>
      (await httpsRequest(serving.address.port, ca, { path, method: 'GET' })).body;
    const gauge = async (name: string): Promise<number> =>
      Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await get('/metrics'))?.[1]);
    const messages = (): string[] => lines().map((l) => String(l['msg']));
    assert.ok(
      messages().some((m) =>
        /^not watching Longhorn yet: the cluster does not serve longhorn\.io\/v1beta2 .*voe asks discovery every 5 s/.test(
          m,
        ),
      ),
    );

    // Without Longhorn: judged by the StorageClass parameters, as before.
    const before = await grow(V2_DISK);
    assert.strictEqual(before?.code, 422);
    assert.match(before?.message ?? '', NOT_READ);
    assert.isUndefined(
      await grow(UBLK_DISK),
      'no data engine in its StorageClass: taken for v1 while Longhorn is not read',
    );

    await installLonghorn();
    // Within the 5 s look and the first lists: judged from Longhorn's Volume (v2, ublk) and version (v1.10.1).
    await eventually(
      async () => (await grow(V2_DISK)) === undefined,
      30_000,
      'the v2 volume allowed on Longhorn v1.10.1',
    );
    const ublk = await grow(UBLK_DISK);
    assert.strictEqual(ublk?.code, 422);
    assert.match(
      ublk?.message ?? '',
      /It is a Longhorn v2 volume with the ublk frontend, which Longhorn cannot grow online/,
    );
    assert.strictEqual(
      started!.caches.admission.longhornVolumes?.get('longhorn-system', pvName(UBLK_DISK))?.spec
        ?.frontend,
      'ublk',
    );
    assert.strictEqual(await get('/readyz'), 'ok');
    assert.strictEqual(await gauge('voe_webhook_caches_not_read'), 0);
    assert.strictEqual(await gauge('voe_webhook_caches_not_synced'), 0);
    assert.deepStrictEqual(started!.unsynced(), []);
    const found = lines().filter((l) =>
      /^Longhorn found: the cluster serves longhorn\.io\/v1beta2/.test(String(l['msg'])),
    );
    assert.strictEqual(found.length, 1);
    assert.strictEqual(found[0]!['level'], 30);
    const synced = lines().find((l) => /^Longhorn caches synced: /.test(String(l['msg'])));
    assert.strictEqual(synced?.['level'], 30);
    assert.deepStrictEqual(synced?.['watching'], [
      'volumes.longhorn.io in longhorn-system',
      'engines.longhorn.io in longhorn-system',
      'settings.longhorn.io/current-longhorn-version in longhorn-system',
    ]);
    assert.deepStrictEqual(
      lines()
        .filter((l) => Number(l['level']) >= 40 && /longhorn/i.test(JSON.stringify(l)))
        .map((l) => l['msg']),
      [],
      'no warning about Longhorn',
    );

    // Uninstalled: no longer read (its caches stopped), still ready, judged as before it was installed.
    await uninstallLonghorn();
    await eventually(
      () =>
        messages().some((m) =>
          /^not watching Longhorn any more \(the cluster no longer serves /.test(m),
        ),
      30_000,
      'Longhorn dropped',
    );
    assert.isUndefined(started!.caches.admission.longhornVolumes);
    await eventually(
      async () => (await grow(UBLK_DISK)) === undefined,
      30_000,
      'judged by its StorageClass again',
    );
    assert.match((await grow(V2_DISK))?.message ?? '', NOT_READ);
    assert.strictEqual(await get('/readyz'), 'ok');

    // Installed again: found again.
    await installLonghorn();
    await eventually(
      async () => (await grow(V2_DISK)) === undefined,
      30_000,
      'the v2 volume allowed again',
    );
    assert.strictEqual(lines().filter((l) => /^Longhorn found: /.test(String(l['msg']))).length, 2);
    await serving.stop();
  });

  /** Creates the objects of manifests/webhook-rbac.yaml as a cluster admin would, except those `skip` picks (those that exist are left). */
  async function applyRbac(skip: (object: KubernetesObject) => boolean): Promise<void> {
    const text = await readFile(
      new URL('../../../../manifests/webhook-rbac.yaml', import.meta.url),
      'utf8',
    );
    const api = KubernetesObjectApi.makeApiClient(cp.kubeConfig);
    for (const doc of parseAllDocuments(text)) {
      const object = doc.toJS() as KubernetesObject;
      if (!skip(object))
        await api.create(object).catch((error: unknown) => {
          if (!isAlreadyExists(error)) throw error;
        });
    }
  }

  const ACCOUNT = {
    user: 'system:serviceaccount:voe-system:voe-webhook',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:voe-system'],
  };
  const inLonghornNamespace = (object: KubernetesObject): boolean =>
    object.metadata?.namespace === 'longhorn-system';

  /** Whether RBAC lets the webhook's account watch Longhorn Engines (RBAC applies new bindings through its own informers). */
  async function accountMayWatchEngines(): Promise<boolean> {
    const review = await cp.kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
      body: {
        spec: {
          user: ACCOUNT.user,
          groups: [...ACCOUNT.groups, 'system:authenticated'],
          resourceAttributes: {
            group: 'longhorn.io',
            resource: 'engines',
            verb: 'watch',
            namespace: 'longhorn-system',
          },
        },
      },
    });
    return review.status?.allowed === true;
  }

  it('Longhorn installed later but its Role not applied (403): voe stays ready, judges Longhorn volumes as not read, says once at warn what is missing and how to fix it; reads Longhorn once the Role is applied; stops without timers left', async () => {
    await uninstallLonghorn();
    // The ServiceAccount and roles as on a cluster without Longhorn: the Longhorn Role and its binding left out (docs/webhook.md).
    await cluster.ensureNamespace('harvester-system');
    await applyRbac(inLonghornNamespace);
    const account = await cp.mintKubeConfig(ACCOUNT.user, ACCOUNT.groups);
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const { logger, lines } = captureLogger('debug');
    const clock = countingClock();
    let started: StartedAdmissionCaches | undefined;
    const wiring = admissionWiring({ longhorn: 'auto' });
    const serving = await serveWebhook({
      kubeConfig: account.kubeConfig,
      logger,
      host: '127.0.0.1',
      port: 0,
      dev: false,
      tlsCertFile: files.certFile,
      tlsKeyFile: files.keyFile,
      // As admissionWiring's, with a clock whose timers the test counts.
      startCaches: async (config, log) =>
        (started = startAdmissionCaches({
          kubeConfig: config,
          logger: log,
          longhorn: 'auto',
          longhornServed: false,
          clock,
        })),
      createValidators: wiring.createValidators,
    });
    onCleanup(() => serving.stop());
    const call = (path: string, body?: string) =>
      httpsRequest(
        serving.address.port,
        files.ca.certificatePem,
        body === undefined ? { path, method: 'GET' } : { path, body },
      );
    const gauge = async (name: string): Promise<number> =>
      Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await call('/metrics')).body)?.[1]);
    await eventually(
      async () => (await call('/readyz')).status === 200,
      30_000,
      '/readyz 200 as voe-webhook',
    );
    /** The webhook's answer to growing the v2 disk by 1Gi (sent as the API server would). */
    const review = async (): Promise<{
      allowed: boolean;
      status?: { code?: number; message?: string };
    }> => {
      const claim = (await cluster.core.readNamespacedPersistentVolumeClaim({
        namespace: 'default',
        name: V2_DISK,
      })) as PersistentVolumeClaim;
      const request = admissionRequest({
        operation: 'UPDATE',
        resource: PVC_RESOURCE,
        kind: PVC_KIND,
        oldObject: claim,
        object: resized(claim, '99Gi'),
        name: V2_DISK,
        namespace: 'default',
      });
      const answer = await call(
        '/validate/pvc-resize',
        JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }),
      );
      return (
        answer.json() as {
          response: { allowed: boolean; status?: { code?: number; message?: string } };
        }
      ).response;
    };
    assert.match((await review()).status?.message ?? '', NOT_READ);

    await installLonghorn();
    const longhornWarnings = () =>
      lines().filter((l) => Number(l['level']) >= 40 && /longhorn/i.test(JSON.stringify(l)));
    await eventually(
      () => longhornWarnings().length > 0,
      30_000,
      'a warning once the Longhorn caches cannot list',
    );
    const notRead = [
      'volumes.longhorn.io in longhorn-system',
      'engines.longhorn.io in longhorn-system',
      'settings.longhorn.io/current-longhorn-version in longhorn-system',
    ];
    const [warning] = longhornWarnings();
    assert.strictEqual(warning!['level'], 40);
    assert.strictEqual(
      String(warning!['msg']),
      `Longhorn is installed (the cluster serves longhorn.io/v1beta2 (Volumes, Engines, Settings)) but voe cannot list ${notRead.join(', ')}: ` +
        'Longhorn volumes are judged as if Longhorn were absent (by their StorageClass parameters; the Longhorn version is not read, so a v2 volume ' +
        'is refused under --longhorn-v2-expansion auto) until it can. Apply the Role voe-webhook-longhorn and its RoleBinding of ' +
        'manifests/webhook-rbac.yaml in longhorn-system (kubectl apply -f manifests/webhook-rbac.yaml); voe lists again every few seconds and ' +
        'reads Longhorn once it can, no restart needed.',
    );
    assert.deepStrictEqual(warning!['cannotList'], notRead);
    for (const why of warning!['why'] as string[])
      assert.match(
        why,
        /^403 Forbidden: .* is forbidden: User "system:serviceaccount:voe-system:voe-webhook" cannot list resource/,
      );
    // Ready all along, and says what it does not read.
    const readyz = await call('/readyz');
    assert.strictEqual(readyz.status, 200);
    assert.strictEqual(
      readyz.body,
      `ok; served but not read yet (not listed, see the log): ${notRead.join(', ')}`,
    );
    assert.strictEqual(await gauge('voe_webhook_caches_not_read'), 3);
    assert.strictEqual(await gauge('voe_webhook_caches_not_synced'), 0);
    const stillNotRead = await review();
    assert.strictEqual(stillNotRead.status?.code, 422);
    assert.match(stillNotRead.status?.message ?? '', NOT_READ);
    // The informers keep trying (every 5 s at most), quietly: the one warning stays the only one.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    assert.strictEqual(longhornWarnings().length, 1, JSON.stringify(longhornWarnings()));
    const retries = lines().filter(
      (l) =>
        l['msg'] === 'informer list/watch failed; restarting after backoff' &&
        /longhorn/.test(String(l['informer'])),
    );
    assert.ok(retries.length >= 3, `the refused lists are retried: ${retries.length}`);
    assert.deepStrictEqual([...new Set(retries.map((l) => l['level']))], [20], 'at debug');
    assert.strictEqual((await call('/readyz')).status, 200);

    // The operator applies the Longhorn Role and binding: voe reads Longhorn without a restart.
    await applyRbac((object) => !inLonghornNamespace(object));
    await eventually(accountMayWatchEngines, 30_000, 'the Longhorn Role applies');
    await eventually(
      async () => (await review()).allowed,
      30_000,
      'the v2 volume allowed once Longhorn v1.10.1 is read',
    );
    assert.strictEqual((await call('/readyz')).body, 'ok');
    assert.strictEqual(await gauge('voe_webhook_caches_not_read'), 0);
    assert.ok(
      lines().some((l) => l['level'] === 30 && /^Longhorn caches synced: /.test(String(l['msg']))),
    );
    assert.strictEqual(longhornWarnings().length, 1);

    await serving.stop();
    assert.strictEqual(clock.pending(), 0, 'no timer left after stop');
    assert.deepStrictEqual(started!.notRead(), []);
  });

  /** `voe serve --longhorn auto` (admissionWiring) as the manifest's ServiceAccount, logging at info; stopped after the test. */
  async function serveAsAccount() {
    const account = await cp.mintKubeConfig(ACCOUNT.user, ACCOUNT.groups);
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const { logger, lines } = captureLogger('info');
    const wiring = admissionWiring({ longhorn: 'auto' });
    const serving = await serveWebhook({
      kubeConfig: account.kubeConfig,
      logger,
      host: '127.0.0.1',
      port: 0,
      dev: false,
      tlsCertFile: files.certFile,
      tlsKeyFile: files.keyFile,
      startCaches: wiring.startCaches,
      createValidators: wiring.createValidators,
    });
    onCleanup(() => serving.stop());
    const readyz = async () =>
      httpsRequest(serving.address.port, files.ca.certificatePem, {
        path: '/readyz',
        method: 'GET',
      });
    return { serving, lines, readyz };
  }

  it('Longhorn served at start, then uninstalled (its CRDs, then its namespace and the Longhorn Role in it): voe stops watching it and stays ready, instead of its caches being refused for ever', async () => {
    if (
      !(await isResourceServed(cp.kubeConfig, {
        group: 'longhorn.io',
        version: 'v1beta2',
        plural: 'volumes',
      }))
    )
      await installLonghorn();
    await cluster.ensureNamespace('harvester-system');
    await applyRbac(() => false);
    await eventually(accountMayWatchEngines, 30_000, 'the Longhorn Role applies');
    const { serving, lines, readyz } = await serveAsAccount();
    await eventually(
      async () => (await readyz()).status === 200,
      30_000,
      '/readyz 200 with Longhorn read from the start',
    );
    const synced = lines().find((l) => l['msg'] === 'admission caches synced');
    assert.ok(
      (synced?.['watching'] as string[]).includes('volumes.longhorn.io in longhorn-system'),
      'watched from the start',
    );

    await uninstallLonghorn();
    await eventually(
      () => lines().some((l) => /^not watching Longhorn any more /.test(String(l['msg']))),
      30_000,
      'Longhorn dropped',
    );
    // What the namespace controller does when longhorn-system is deleted (this control plane runs none).
    await cp.kubeConfig
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteNamespacedRole({ namespace: 'longhorn-system', name: 'voe-webhook-longhorn' });
    await eventually(
      async () => !(await accountMayWatchEngines()),
      30_000,
      'the Longhorn Role gone',
    );
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    const answer = await readyz();
    assert.strictEqual(answer.status, 200, answer.body);
    assert.strictEqual(answer.body, 'ok');
    await serving.stop();
  });

  it('Longhorn served at start but its Role not applied (as after a restart of a voe that was ready with Longhorn not read): voe becomes ready with Longhorn not read, says so once, and reads it once the Role is applied', async () => {
    if (
      !(await isResourceServed(cp.kubeConfig, {
        group: 'longhorn.io',
        version: 'v1beta2',
        plural: 'volumes',
      }))
    )
      await installLonghorn();
    await cluster.ensureNamespace('harvester-system');
    await applyRbac(inLonghornNamespace);
    const rbac = cp.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac
      .deleteNamespacedRole({ namespace: 'longhorn-system', name: 'voe-webhook-longhorn' })
      .catch(() => undefined);
    await eventually(async () => !(await accountMayWatchEngines()), 30_000, 'no Longhorn Role');
    const { serving, lines, readyz } = await serveAsAccount();
    await eventually(
      async () => (await readyz()).status === 200,
      30_000,
      "/readyz 200 although Longhorn's caches cannot list",
    );
    assert.match(
      (await readyz()).body,
      /^ok; served but not read yet \(not listed, see the log\): volumes\.longhorn\.io in longhorn-system/,
    );
    await eventually(
      () => lines().some((l) => l['msg'] === 'admission caches synced'),
      10_000,
      'the caches-synced line',
    );
    const synced = lines().find((l) => l['msg'] === 'admission caches synced')!;
    assert.deepStrictEqual(
      (synced['watching'] as string[]).filter((name) => /longhorn/.test(name)),
      [],
      'Longhorn not among the caches read',
    );
    const longhornWarnings = () =>
      lines().filter((l) => Number(l['level']) >= 40 && /longhorn/i.test(JSON.stringify(l)));
    await eventually(() => longhornWarnings().length > 0, 10_000, 'the warning');
    assert.match(
      String(longhornWarnings()[0]!['msg']),
      /^Longhorn is installed .* but voe cannot list .*Apply the Role voe-webhook-longhorn and its RoleBinding/,
    );
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    assert.strictEqual(longhornWarnings().length, 1, 'said once');

    await applyRbac((object) => !inLonghornNamespace(object));
    await eventually(accountMayWatchEngines, 30_000, 'the Longhorn Role applies');
    await eventually(
      () => lines().some((l) => /^Longhorn caches synced: /.test(String(l['msg']))),
      30_000,
      'Longhorn read',
    );
    assert.strictEqual((await readyz()).body, 'ok');
    await serving.stop();
  });
});
