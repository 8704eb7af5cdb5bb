import { describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  StorageV1Api,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';
import { createLogger } from '../../../src/log/index.js';
import { admissionWiring } from '../../../src/webhook/admission-wiring.js';
import { serveWebhook } from '../../../src/webhook/serve-webhook.js';
import { WebhookError } from '../../../src/webhook/webhook-error.js';
import { eventually } from '../../support/eventually.js';
import { servingUrl, spawnServeDev } from '../../support/webhook/serve-dev-process.js';
import { useControlPlane } from '../../support/use-control-plane.js';
import { httpsRequest } from '../../support/webhook/webhook-client.js';

// A plain Kubernetes cluster: no KubeVirt, Harvester or Longhorn CRDs (as `voe cluster start --no-crds`).
const cp = await useControlPlane({ crds: false });
const core = cp.kubeConfig.makeApiClient(CoreV1Api);
const NS = 'no-crds';
await core.createNamespace({ body: { metadata: { name: NS } } });
await cp.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
  body: {
    metadata: { name: 'expandable' },
    provisioner: 'driver.longhorn.io',
    allowVolumeExpansion: true,
  },
});

/** A Bound PVC (the PV binder's part written by hand), expandable through its StorageClass. */
async function boundPvc(name: string): Promise<void> {
  await core.createPersistentVolume({
    body: {
      metadata: { name: `pv-${name}` },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'expandable',
        persistentVolumeReclaimPolicy: 'Delete',
        csi: { driver: 'driver.longhorn.io', volumeHandle: `pv-${name}` },
        claimRef: { namespace: NS, name },
      },
    },
  });
  await core.createNamespacedPersistentVolumeClaim({
    namespace: NS,
    body: {
      metadata: {
        name,
        annotations: { 'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io' },
      },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'expandable',
        volumeName: `pv-${name}`,
        resources: { requests: { storage: '1Gi' } },
      },
    },
  });
  const pvc = await core.readNamespacedPersistentVolumeClaim({ name, namespace: NS });
  pvc.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
  await core.replaceNamespacedPersistentVolumeClaimStatus({ name, namespace: NS, body: pvc });
}

/** Grows the PVC through the API server; undefined when admitted, else the refusal's code and message. */
async function grow(
  name: string,
  size: string,
): Promise<{ code: number; message: string } | undefined> {
  const pvc: V1PersistentVolumeClaim = await core.readNamespacedPersistentVolumeClaim({
    name,
    namespace: NS,
  });
  pvc.spec!.resources!.requests = { storage: size };
  try {
    await core.replaceNamespacedPersistentVolumeClaim({ name, namespace: NS, body: pvc });
    return undefined;
  } catch (error) {
    const e = error as { code?: number; body?: unknown };
    return {
      code: e.code ?? 0,
      message: (JSON.parse(String(e.body)) as { message: string }).message,
    };
  }
}

describe('voe serve --dev without the KubeVirt/Harvester/Longhorn CRDs', () => {
  it('voe serve --dev on a cluster without the KubeVirt/Harvester/Longhorn CRDs: registers at once, names what is not served, and picks the resources up once their CRDs are installed', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'voe-no-crds-'));
    onCleanup(() => rm(certDir, { recursive: true, force: true }));
    const serve = spawnServeDev(cp.kubeconfigPath, ['--cert-dir', certDir]);
    onCleanup(() => {
      serve.child.kill('SIGKILL');
    });
    const { port } = await servingUrl(serve);
    // voe logs to stdout asynchronously (pino's default destination): its last start-up line may
    // arrive after the 'webhooks at' line on stderr, which is written later but synchronously.
    await serve.waitForLog(/could not confirm that the API server calls the webhook/, 10_000);
    // A resource the cluster does not serve counts as synced and empty: the caches synced (the
    // cache-sync timeout ends in WEBHOOK_REGISTRATION_FAILED, never in a registration), then it
    // registered, and no list of a missing resource was retried as a failure.
    const messages = serve.logs().map((l) => l['msg']);
    assert.ok(messages.indexOf('admission caches synced') >= 0, serve.stdout());
    assert.ok(
      messages.indexOf('admission caches synced') <
        messages.indexOf('ValidatingWebhookConfiguration registered'),
      'synced, then registered',
    );
    assert.deepStrictEqual(
      messages.filter((m) => /informer list\/watch failed/.test(String(m))),
      [],
      'no list retried after a failure',
    );
    const notServed = [
      'virtualmachines.kubevirt.io',
      'virtualmachineinstances.kubevirt.io',
      'kubevirts.kubevirt.io',
      'settings.harvesterhci.io',
    ];
    const warnings = serve
      .logs()
      .filter((l) => l['level'] === 40 && typeof l['resource'] === 'string');
    assert.deepStrictEqual(
      warnings.map((l) => l['resource']).sort(),
      [...notServed].sort(),
      'one warning per resource not served',
    );
    const vms = warnings.find((l) => l['resource'] === 'virtualmachines.kubevirt.io')!;
    assert.match(
      String(vms['msg']),
      /the cluster does not serve virtualmachines\.kubevirt\.io \(no CRD\): watched as empty until it does/,
    );
    assert.match(String(vms['means']), /no VirtualMachine uses any PVC/);
    const vmis = warnings.find((l) => l['resource'] === 'virtualmachineinstances.kubevirt.io')!;
    assert.match(
      String(vmis['means']),
      /no VirtualMachineInstance runs, so only VirtualMachines say which PVCs running VMs use/,
    );
    const synced = serve.logs().find((l) => l['msg'] === 'admission caches synced')!;
    assert.deepStrictEqual(synced['notServed'], [
      'virtualmachines.kubevirt.io',
      'virtualmachineinstances.kubevirt.io',
      'kubevirts.kubevirt.io/kubevirt in harvester-system',
      'settings.harvesterhci.io/csi-online-expand-validation',
    ]);
    assert.ok(
      serve
        .logs()
        .some(
          (l) =>
            l['msg'] ===
            'not watching Longhorn yet: the cluster does not serve longhorn.io/v1beta2 (Volumes, Engines, Settings); ' +
              'Longhorn volumes are judged by their StorageClass parameters until it does (voe asks discovery every 5 s)',
        ),
    );
    // Settings are not served, so the dry-run probe cannot show that the API server calls the webhook.
    assert.ok(
      serve
        .logs()
        .some(
          (l) =>
            l['level'] === 40 &&
            /could not confirm that the API server calls the webhook/.test(String(l['msg'])),
        ),
    );

    const ca = await readFile(join(certDir, 'ca.crt'), 'utf8');
    const readyz = await httpsRequest(port, ca, { path: '/readyz', method: 'GET' });
    assert.strictEqual(readyz.status, 200);
    assert.strictEqual(
      readyz.body,
      'ok; not served by the cluster, watched as empty: virtualmachines.kubevirt.io, virtualmachineinstances.kubevirt.io, ' +
        'kubevirts.kubevirt.io/kubevirt in harvester-system, settings.harvesterhci.io/csi-online-expand-validation',
    );

    // No VirtualMachines served: no VM uses the PVC, so the growth is allowed (offline), by the webhook.
    await boundPvc('disk');
    assert.isUndefined(await grow('disk', '2Gi'));
    const metrics = (await httpsRequest(port, ca, { path: '/metrics', method: 'GET' })).body;
    assert.match(
      metrics,
      /voe_webhook_requests_total\{webhook="pvc-resize",decision="allowed",reason="allowed-offline"\} 1/,
    );

    // The CRDs appear (KubeVirt and Harvester installed later): the informers fill within their 5 s retry.
    await installCrds(cp.kubeConfig);
    await eventually(
      async () => (await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).body === 'ok',
      30_000,
      '/readyz without resources not served',
    );
    // Each line is logged as its resource turns served, but written to stdout asynchronously: the
    // last may arrive after the /readyz answer.
    const nowServed = () =>
      serve
        .logs()
        .filter((l) => /^the cluster now serves /.test(String(l['msg'])))
        .map((l) => l['resource'])
        .sort();
    await eventually(
      () => nowServed().length >= notServed.length,
      10_000,
      'a "the cluster now serves" line per resource',
    );
    assert.deepStrictEqual(nowServed(), [...notServed].sort());
    // Longhorn's CRDs came with them: --longhorn auto found its API and reads it (test/integration/webhook/longhorn-installed-later.test.ts).
    await eventually(
      () => serve.logs().some((l) => /^Longhorn caches synced: /.test(String(l['msg']))),
      10_000,
      'Longhorn read',
    );
    // A running VM using the PVC and a KubeVirt without ExpandDisks: now the growth is refused, so the caches hold them.
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    await core.createNamespace({ body: { metadata: { name: 'harvester-system' } } });
    await custom.createNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'kubevirts',
      namespace: 'harvester-system',
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'KubeVirt',
        metadata: { name: 'kubevirt' },
        spec: { configuration: { developerConfiguration: { featureGates: [] } } },
      },
    });
    await custom.createNamespacedCustomObject({
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'virtualmachines',
      namespace: NS,
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'vm' },
        spec: {
          runStrategy: 'Always',
          template: {
            spec: { volumes: [{ name: 'disk', persistentVolumeClaim: { claimName: 'disk' } }] },
          },
        },
      },
    });
    await eventually(
      async () => (await grow('disk', '3Gi'))?.code === 422,
      30_000,
      'the growth refused once the VM and KubeVirt are cached',
    );
    assert.match(
      (await grow('disk', '3Gi'))!.message,
      /PVC_EXPAND: kubevirt ExpandDisks not included in featureGate/,
    );

    assert.deepStrictEqual(await serve.stop('SIGTERM'), { code: 0, signal: null }, serve.stderr());
    await expectRejection(
      cp.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .readValidatingWebhookConfiguration({ name: 'voe-dev' }),
      { code: 404 },
    );
  });

  it('caches that cannot list (RBAC) still time out, and the error names them', async () => {
    const { kubeConfig: nobody } = await cp.mintKubeConfig('nobody');
    const wiring = admissionWiring({ longhorn: false });
    await expectRejection(
      serveWebhook({
        kubeConfig: nobody,
        logger: createLogger({ level: 'silent' }),
        host: '127.0.0.1',
        port: 0,
        dev: true,
        configurationName: 'voe-dev-rbac',
        cacheSyncTimeoutMs: 2_000,
        startCaches: wiring.startCaches,
        createValidators: wiring.createValidators,
      }),
      (error: unknown) => {
        assert.ok(error instanceof WebhookError);
        assert.strictEqual(error.code, 'WEBHOOK_REGISTRATION_FAILED');
        assert.match(
          error.message,
          /^The informer caches did not sync within 2 s: persistentvolumeclaims, storageclasses\.storage\.k8s\.io, .*csidrivers\.storage\.k8s\.io never listed; the webhook was not registered\. .*403 Forbidden: check RBAC/,
        );
        return true;
      },
    );
  });
});
