import { after, describe, it } from 'mocha';
import { assert } from 'chai';
import { expectRejection } from '../../support/expect-error.js';
import { onCleanup } from '../../support/cleanup.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  StorageV1Api,
  type V1PersistentVolumeClaim,
} from '@kubernetes/client-node';
import { createCertificateAuthority, issueServingCertificate } from '../../../src/tls/index.js';
import type {
  AdmissionRequest,
  AdmissionVerdict,
  Validator,
} from '../../../src/admission/validators/validator.js';
import { createWebhookServer } from '../../../src/webhook/create-webhook-server.js';
import { buildValidatingWebhookConfiguration } from '../../../src/webhook/registration/build-validating-webhook-configuration.js';
import { confirmApiServerCalls } from '../../../src/webhook/registration/confirm-api-server-calls.js';
import { applyValidatingWebhookConfiguration } from '../../../src/webhook/registration/webhook-registration.js';
import { createWebhookMetrics } from '../../../src/webhook/webhook-metrics.js';
import { captureLogger } from '../../support/capture-logger.js';
import { eventually } from '../../support/eventually.js';
import { useControlPlane } from '../../support/use-control-plane.js';

const cp = await useControlPlane();
const core = cp.kubeConfig.makeApiClient(CoreV1Api);
const storage = cp.kubeConfig.makeApiClient(StorageV1Api);
const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
const NS = 'webhook-test';
const REFUSE = 'test.voe.dev/refuse';
const THROW = 'test.voe.dev/throw';

/** Test validators: refuse a PVC marked with REFUSE, throw for THROW; record every call. */
const calls: Record<string, AdmissionRequest[]> = { 'pvc-resize': [], vm: [], setting: [] };
function annotations(request: AdmissionRequest): Record<string, string> {
  return (
    (request.object as { metadata?: { annotations?: Record<string, string> } } | null)?.metadata
      ?.annotations ?? {}
  );
}
const validators: Validator[] = [
  {
    name: 'pvc-resize',
    path: '/validate/pvc-resize',
    validate(request): AdmissionVerdict {
      calls['pvc-resize']!.push(request);
      if (annotations(request)[THROW]) throw new Error('the test validator failed on purpose');
      if (annotations(request)[REFUSE]) {
        return {
          allowed: false,
          code: 422,
          reason: 'Invalid',
          decision: 'test-refusal',
          message: `PVC_EXPAND: pvc ${request.namespace}/${request.name} is marked ${REFUSE}`,
          warnings: ['marked for refusal'],
        };
      }
      return { allowed: true, decision: 'test-allow' };
    },
  },
  {
    name: 'vm',
    path: '/validate/vm',
    validate: (request) => {
      calls['vm']!.push(request);
      return { allowed: true, decision: 'test-allow' };
    },
  },
  {
    name: 'setting',
    path: '/validate/setting',
    validate: (request) => {
      calls['setting']!.push(request);
      return { allowed: true, decision: 'test-allow' };
    },
  },
];

const certDir = await mkdtemp(join(tmpdir(), 'voe-webhook-it-'));
const ca = await createCertificateAuthority('voe-it-webhook-ca');
const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1', 'localhost'] });
await writeFile(join(certDir, 'tls.crt'), serving.certificatePem);
await writeFile(join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
const server = createWebhookServer({
  validators,
  tls: { certFile: join(certDir, 'tls.crt'), keyFile: join(certDir, 'tls.key') },
  ready: () => true,
  logger: captureLogger('warn').logger,
});
const address = await server.listen(0, '127.0.0.1');
const configuration = buildValidatingWebhookConfiguration({
  name: 'voe-it',
  urlBase: `https://127.0.0.1:${address.port}`,
  caBundle: ca.certificatePem,
});
await applyValidatingWebhookConfiguration(cp.kubeConfig, configuration);

await core.createNamespace({ body: { metadata: { name: NS } } });
await storage.createStorageClass({
  body: {
    metadata: { name: 'expandable' },
    provisioner: 'driver.longhorn.io',
    allowVolumeExpansion: true,
  },
});

/** A Bound PVC (PV + claim + status, as the PV controller would write them), expandable through its StorageClass. */
async function boundPvc(name: string, marks: Record<string, string> = {}): Promise<void> {
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
        annotations: { 'volume.kubernetes.io/storage-provisioner': 'driver.longhorn.io', ...marks },
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

async function update(
  name: string,
  change: (pvc: V1PersistentVolumeClaim) => void,
): Promise<V1PersistentVolumeClaim> {
  const pvc = await core.readNamespacedPersistentVolumeClaim({ name, namespace: NS });
  change(pvc);
  return await core.replaceNamespacedPersistentVolumeClaim({ name, namespace: NS, body: pvc });
}

function requestStorage(size: string) {
  return (pvc: V1PersistentVolumeClaim) => {
    pvc.spec!.resources!.requests = { storage: size };
  };
}

function errorMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  try {
    return (JSON.parse(String(body)) as { message: string }).message;
  } catch {
    return String(body ?? error);
  }
}

/** The API server picks up a new webhook configuration asynchronously: wait until a marked resize is refused. */
await boundPvc('probe', { [REFUSE]: 'true' });
{
  const deadline = Date.now() + 30_000;
  for (let gi = 2; ; gi++) {
    try {
      await update('probe', requestStorage(`${gi}Gi`));
    } catch (error) {
      if (errorMessage(error).includes('PVC_EXPAND')) break;
      throw error;
    }
    if (Date.now() > deadline) throw new Error('the API server never called the webhook');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the webhook server behind a real API server', () => {
  // useControlPlane's own `after` (registered first) stops the API server, and the configuration with it.
  after(async () => {
    await server.close();
    await rm(certDir, { recursive: true, force: true });
  });

  it('a growing resize is sent to the webhook and admitted', async () => {
    await boundPvc('plain');
    const before = calls['pvc-resize']!.length;
    const updated = await update('plain', requestStorage('2Gi'));
    assert.strictEqual(updated.spec?.resources?.requests?.['storage'], '2Gi');
    const call = calls['pvc-resize']!.slice(before).find((r) => r.name === 'plain');
    assert.ok(call, 'the webhook saw the request');
    assert.strictEqual(call.operation, 'UPDATE');
    assert.strictEqual(call.namespace, NS);
    assert.strictEqual(
      (call.oldObject as { spec: { resources: { requests: { storage: string } } } }).spec.resources
        .requests.storage,
      '1Gi',
    );
    assert.strictEqual(call.userInfo?.username, 'voe-admin');
  });

  it('a marked PVC resize is refused with the validator message, code and no size change', async () => {
    await boundPvc('marked', { [REFUSE]: 'true' });
    await expectRejection(update('marked', requestStorage('5Gi')), (error: unknown) => {
      assert.strictEqual((error as { code?: number }).code, 422);
      const message = errorMessage(error);
      assert.match(
        message,
        /admission webhook "pvc-resize.voe.harvesterhci.io" denied the request: PVC_EXPAND: pvc webhook-test\/marked is marked/,
      );
      return true;
    });
    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: 'marked', namespace: NS });
    assert.strictEqual(pvc.spec?.resources?.requests?.['storage'], '1Gi');
  });

  it('updates that do not grow the request are not sent to the webhook (matchConditions)', async () => {
    await boundPvc('quiet', { [REFUSE]: 'true' });
    const before = calls['pvc-resize']!.filter((r) => r.name === 'quiet').length;
    await update('quiet', (pvc) => {
      pvc.metadata!.labels = { touched: 'yes' };
    });
    // Same quantity written differently: canonical form is equal, so not a growth.
    await update('quiet', requestStorage('1024Mi'));
    assert.strictEqual(calls['pvc-resize']!.filter((r) => r.name === 'quiet').length, before);
    const pvc = await core.readNamespacedPersistentVolumeClaim({ name: 'quiet', namespace: NS });
    assert.strictEqual(pvc.metadata?.labels?.['touched'], 'yes');
  });

  it('a smaller request still above status.capacity (recovering from a failed expansion: no more than is pending already) is not sent to the webhook, even one it would refuse; one down to the capacity is refused by the API server before it', async () => {
    await boundPvc('recover');
    await update('recover', requestStorage('10Gi'));
    // The external-resizer's record of the failed expansion (ControllerExpandVolume said OutOfRange).
    const failed = await core.readNamespacedPersistentVolumeClaim({
      name: 'recover',
      namespace: NS,
    });
    failed.status = {
      ...failed.status,
      capacity: { storage: '1Gi' },
      allocatedResources: { storage: '10Gi' },
      allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
    };
    await core.replaceNamespacedPersistentVolumeClaimStatus({
      name: 'recover',
      namespace: NS,
      body: failed,
    });
    const sent = () => calls['pvc-resize']!.filter((r) => r.name === 'recover').length;
    const before = sent();
    await update('recover', requestStorage('5Gi'));
    await update('recover', (pvc) => {
      pvc.metadata!.annotations = { ...pvc.metadata!.annotations, [REFUSE]: 'true' };
    });
    await update('recover', requestStorage('4Gi'));
    assert.strictEqual(
      (await core.readNamespacedPersistentVolumeClaim({ name: 'recover', namespace: NS })).spec
        ?.resources?.requests?.['storage'],
      '4Gi',
      'lowered although the webhook refuses every growth of it',
    );
    await expectRejection(update('recover', requestStorage('1Gi')), (error: unknown) => {
      assert.match(
        errorMessage(error),
        /spec\.resources\.requests\.storage.*can not be less than status\.capacity/,
      );
      return true;
    });
    await expectRejection(
      update('recover', requestStorage('6Gi')),
      (error: unknown) => {
        assert.match(
          errorMessage(error),
          /denied the request: PVC_EXPAND: pvc webhook-test\/recover is marked/,
        );
        return true;
      },
      'growing it again is judged',
    );
    assert.strictEqual(sent(), before + 1, 'only the growth reached the webhook');
  });

  it('a validator that throws refuses the resize with code 500 and says so', async () => {
    await boundPvc('throws', { [THROW]: 'true' });
    await expectRejection(update('throws', requestStorage('3Gi')), (error: unknown) => {
      assert.strictEqual((error as { code?: number }).code, 500);
      assert.match(
        errorMessage(error),
        /voe webhook pvc-resize failed while checking this request: the test validator failed on purpose/,
      );
      return true;
    });
  });

  it('VM updates reach the webhook only when the volumeClaimTemplates annotation changes', async () => {
    const gvr = { group: 'kubevirt.io', version: 'v1', namespace: NS, plural: 'virtualmachines' };
    await custom.createNamespacedCustomObject({
      ...gvr,
      body: {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'vm1', annotations: { 'harvesterhci.io/volumeClaimTemplates': '[]' } },
        spec: { runStrategy: 'Halted', template: { spec: { volumes: [] } } },
      },
    });
    const replace = async (
      change: (vm: {
        metadata: { labels?: Record<string, string>; annotations: Record<string, string> };
      }) => void,
    ) => {
      const vm = (await custom.getNamespacedCustomObject({ ...gvr, name: 'vm1' })) as {
        metadata: { labels?: Record<string, string>; annotations: Record<string, string> };
      };
      change(vm);
      await custom.replaceNamespacedCustomObject({ ...gvr, name: 'vm1', body: vm });
    };
    const before = calls['vm']!.length;
    await replace((vm) => {
      vm.metadata.labels = { other: 'change' };
    });
    assert.strictEqual(calls['vm']!.length, before);
    await replace((vm) => {
      vm.metadata.annotations['harvesterhci.io/volumeClaimTemplates'] =
        '[{"metadata":{"name":"disk-0"}}]';
    });
    assert.strictEqual(calls['vm']!.length, before + 1);
    await replace((vm) => {
      delete (vm.metadata as { annotations?: unknown }).annotations;
    });
    assert.strictEqual(calls['vm']!.length, before + 2);
  });

  it('only the csi-online-expand-validation Setting reaches the setting webhook', async () => {
    const gvr = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' };
    const before = calls['setting']!.length;
    await custom.createClusterCustomObject({
      ...gvr,
      body: {
        apiVersion: 'harvesterhci.io/v1beta1',
        kind: 'Setting',
        metadata: { name: 'some-other-setting' },
        value: 'x',
      },
    });
    assert.strictEqual(calls['setting']!.length, before);
    await custom.createClusterCustomObject({
      ...gvr,
      body: {
        apiVersion: 'harvesterhci.io/v1beta1',
        kind: 'Setting',
        metadata: { name: 'csi-online-expand-validation' },
        default: '{"driver.longhorn.io":true}',
      },
    });
    assert.strictEqual(calls['setting']!.length, before + 1);
    assert.strictEqual(calls['setting']!.at(-1)?.operation, 'CREATE');
  });

  it('voe serve --dev registers its webhooks against the cluster and removes them on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        'dist/src/cli/main.js',
        'serve',
        '--dev',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--port',
        '0',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /webhooks at (https:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`voe serve exited with ${code}: ${stderr}`)));
    });
    const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const registered = await admission.readValidatingWebhookConfiguration({ name: 'voe-dev' });
    assert.deepStrictEqual(
      registered.webhooks?.map((w) => w.clientConfig.url),
      [`${url}/validate/pvc-resize`, `${url}/validate/vm`, `${url}/validate/setting`],
    );
    assert.ok(
      registered.webhooks?.every(
        (w) =>
          w.failurePolicy === 'Fail' &&
          w.sideEffects === 'None' &&
          (w.clientConfig.caBundle ?? '').length > 0,
      ),
    );
    // No VM uses this PVC, so the real validators allow it (offline expansion); the API server reaches them over TLS with the dev CA.
    await boundPvc('dev');
    const updated = await update('dev', requestStorage('3Gi'));
    assert.strictEqual(updated.spec?.resources?.requests?.['storage'], '3Gi');
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGTERM');
    });
    assert.strictEqual(exitCode, 0, stderr);
    await expectRejection(
      admission.readValidatingWebhookConfiguration({ name: 'voe-dev' }),
      (e: unknown) => (e as { code?: number }).code === 404,
    );
  });

  it('voe serve --dev --bind-address: the registered url and the dev serving certificate use that address, and the API server calls it', async () => {
    // 127.0.0.2 stands for an address of this machine other than 127.0.0.1 (e.g. the docker bridge for kind).
    const child = spawn(
      process.execPath,
      [
        'dist/src/cli/main.js',
        'serve',
        '--dev',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--port',
        '0',
        '--bind-address',
        '127.0.0.2',
        '--webhook-configuration-name',
        'voe-dev-bind',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /webhooks at (https:\/\/[^ ]+) /.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`voe serve exited with ${code}: ${stderr}`)));
    });
    assert.match(url, /^https:\/\/127\.0\.0\.2:\d+$/);
    const registered = await cp.kubeConfig
      .makeApiClient(AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'voe-dev-bind' });
    assert.strictEqual(registered.webhooks?.[0]?.clientConfig.url, `${url}/validate/pvc-resize`);
    // Confirmed by the dry-run probe: the API server verified the certificate for 127.0.0.2 and got an answer.
    // voe logs to stdout asynchronously (pino's default destination): that line may arrive after the
    // 'webhooks at' line on stderr, which is written later but synchronously.
    await eventually(
      () => /"msg":"the API server calls the webhook"/.test(stdout),
      10_000,
      'the log line "the API server calls the webhook"',
    );
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGTERM');
    });
    assert.strictEqual(exitCode, 0, stderr);
  });

  it('confirmApiServerCalls: confirmed once the API server calls the registered webhook, with a dry run that changes nothing', async () => {
    const setting = {
      group: 'harvesterhci.io',
      version: 'v1beta1',
      plural: 'settings',
      name: 'csi-online-expand-validation',
    };
    const versionOf = () =>
      custom.getClusterCustomObject(setting).then(
        (o: { metadata?: { resourceVersion?: string } }) => o.metadata?.resourceVersion,
        () => 'absent',
      );
    const version = await versionOf();
    const before = calls['setting']!.length;
    const check = await confirmApiServerCalls({
      kubeConfig: cp.kubeConfig,
      reviewsAnswered: () => server.reviewsAnswered('setting'),
      settingName: setting.name,
      timeoutMs: 30_000,
    });
    assert.strictEqual(check, 'confirmed');
    const probe = calls['setting']!.slice(before).at(-1);
    assert.strictEqual(probe?.operation, 'CREATE');
    assert.isTrue(probe?.dryRun);
    assert.strictEqual(await versionOf(), version, 'the dry run changed nothing');
  });

  it('confirmApiServerCalls: unverifiable when we may not create Settings; timeout when the webhook is never called', async () => {
    const { kubeConfig: nobody } = await cp.mintKubeConfig('nobody');
    assert.strictEqual(
      await confirmApiServerCalls({
        kubeConfig: nobody,
        reviewsAnswered: () => server.reviewsAnswered('setting'),
        settingName: 'csi-online-expand-validation',
        timeoutMs: 5_000,
      }),
      'unverifiable',
    );
    // A webhook server the configuration does not point to never sees the probe.
    const unregistered = createWebhookMetrics().requests;
    assert.strictEqual(
      await confirmApiServerCalls({
        kubeConfig: cp.kubeConfig,
        reviewsAnswered: async () =>
          (await unregistered.get()).values.reduce((sum, sample) => sum + sample.value, 0),
        settingName: 'csi-online-expand-validation',
        timeoutMs: 1_000,
      }),
      'timeout',
    );
  });
});
