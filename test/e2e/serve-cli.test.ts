import { describe, it } from 'mocha';
import { assert } from 'chai';
import { onCleanup } from '../support/cleanup.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  StorageV1Api,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { isAlreadyExists } from '../../src/kube/index.js';
import { httpsRequest, pvcReview, writeServingFiles } from '../support/webhook/webhook-client.js';
import { eventually } from '../support/eventually.js';
import { useControlPlane } from '../support/use-control-plane.js';
import { writeUnreachableKubeconfig } from '../support/unreachable-kubeconfig.js';

const cp = await useControlPlane();

const MAIN = 'dist/src/cli/main.js';

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `voe serve` in cluster mode (certificate files) with `kubeconfig`; resolves with its port once it listens. */
async function startServe(
  kubeconfig: string,
  certFile: string,
  keyFile: string,
  args: string[] = [],
): Promise<{ child: ChildProcess; port: number; stdout: () => string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'serve',
      '--kubeconfig',
      kubeconfig,
      '--tls-cert-file',
      certFile,
      '--tls-key-file',
      keyFile,
      '--port',
      '0',
      '--bind-address',
      '127.0.0.1',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
      const match = /webhooks at https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, port, stdout: () => stdout, stderr: () => stderr };
}

function stopServe(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

describe('voe serve in cluster mode', () => {
  it('voe serve without --dev needs the certificate files', async () => {
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const result = await run([
      'serve',
      '--kubeconfig',
      await writeUnreachableKubeconfig(files.dir),
      '--port',
      '0',
    ]);
    assert.strictEqual(result.code, 2);
    assert.match(
      result.stderr,
      /voe: WEBHOOK_INVALID_OPTIONS: .*--tls-cert-file and --tls-key-file/,
    );
    const bad = await run(['serve', '--port', '70000']);
    assert.notStrictEqual(bad.code, 0);
    assert.match(bad.stderr, /must be an integer from 0 to 65535/);
  });

  it('voe serve with certificate files watches the cluster, answers reviews, probes and metrics, and stops on SIGTERM', async () => {
    const files = await writeServingFiles();
    const { child, port, stdout, stderr } = await startServe(
      cp.kubeconfigPath,
      files.certFile,
      files.keyFile,
    );
    onCleanup(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await files.cleanup();
    });
    const ca = files.ca.certificatePem;
    // In cluster the server listens at once and reports ready when its informers have synced (the
    // kubelet's readiness probe); reviews before that are refused with 500. Wait as the probe would.
    await eventually(
      async () => (await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).status === 200,
      30_000,
      '/readyz 200',
    );
    const review = await httpsRequest(port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview('cli-1')),
    });
    assert.deepStrictEqual((review.json() as { response: unknown }).response, {
      uid: 'cli-1',
      allowed: true,
    });
    for (const path of ['/validate/vm', '/validate/setting']) {
      assert.strictEqual(
        (await httpsRequest(port, ca, { path, body: JSON.stringify(pvcReview('x')) })).status,
        200,
      );
    }
    assert.strictEqual(
      (await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).status,
      200,
    );
    assert.match(
      (await httpsRequest(port, ca, { path: '/metrics', method: 'GET' })).body,
      /voe_webhook_requests_total\{webhook="pvc-resize",decision="allowed",reason="allowed-offline"\} 1/,
    );
    assert.strictEqual(await stopServe(child), 0, stderr());
    assert.match(stdout(), /"msg":"webhook server listening"/);
    assert.ok(!stdout().includes('PRIVATE KEY'));
  });

  it('--shutdown-delay: after SIGTERM voe serve keeps answering while the pod leaves the endpoints; a second signal closes at once, exit 0', async () => {
    const files = await writeServingFiles();
    const { child, port, stdout, stderr } = await startServe(
      cp.kubeconfigPath,
      files.certFile,
      files.keyFile,
      ['--shutdown-delay', '300'],
    );
    onCleanup(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await files.cleanup();
    });
    const ca = files.ca.certificatePem;
    await eventually(
      async () => (await httpsRequest(port, ca, { path: '/readyz', method: 'GET' })).status === 200,
      30_000,
      '/readyz 200',
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await eventually(
      () => /stopping after --shutdown-delay; still answering meanwhile/.test(stdout()),
      30_000,
      'the delay to start',
    );
    const review = await httpsRequest(port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview('draining')),
    });
    assert.deepStrictEqual(
      (review.json() as { response: unknown }).response,
      { uid: 'draining', allowed: true },
      'answered during the delay',
    );
    assert.isNull(child.exitCode, 'still running: 300 s are not over');
    child.kill('SIGTERM');
    assert.strictEqual(await exited, 0, stderr());
    assert.match(stdout(), /"msg":"stopping"/);
    const dev = await run(['serve', '--dev', '--shutdown-delay', '5']);
    assert.strictEqual(dev.code, 2);
    assert.match(
      dev.stderr,
      /^voe: WEBHOOK_INVALID_OPTIONS: --shutdown-delay applies only without --dev/,
    );
  });

  /** Creates every object of manifests/webhook-rbac.yaml as a cluster admin would (kubectl create -f). */
  async function applyRbacManifest(): Promise<KubernetesObject[]> {
    const text = await readFile(
      new URL('../../../manifests/webhook-rbac.yaml', import.meta.url),
      'utf8',
    );
    const objects = parseAllDocuments(text).map((doc) => doc.toJS() as KubernetesObject);
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    // Harvester's own namespaces exist on a Harvester cluster; the manifest does not create them.
    for (const name of ['harvester-system', 'longhorn-system']) {
      await core.createNamespace({ body: { metadata: { name } } }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
    const api = KubernetesObjectApi.makeApiClient(cp.kubeConfig);
    for (const object of objects) await api.create(object);
    return objects;
  }

  /** The user name and groups a ServiceAccount of voe-system authenticates with. */
  const serviceAccount = (name: string): { user: string; groups: string[] } => ({
    user: `system:serviceaccount:voe-system:${name}`,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:voe-system'],
  });

  /** A kubeconfig whose client certificate authenticates as a ServiceAccount of voe-system (as its token would in a pod). */
  async function serviceAccountKubeconfig(name: string): Promise<string> {
    const { user, groups } = serviceAccount(name);
    return (await cp.mintKubeConfig(user, groups)).path;
  }

  it('in cluster, the ServiceAccount and roles of manifests/webhook-rbac.yaml are all voe serve needs; without them it stays unready and says why', async () => {
    const objects = await applyRbacManifest();
    assert.deepStrictEqual(
      objects.map(
        (o) =>
          `${o.kind}/${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name}`,
      ),
      [
        'Namespace/voe-system',
        'ServiceAccount/voe-system/voe-webhook',
        'ClusterRole/voe-webhook',
        'ClusterRoleBinding/voe-webhook',
        'Role/harvester-system/voe-webhook-kubevirt',
        'RoleBinding/harvester-system/voe-webhook-kubevirt',
        'Role/longhorn-system/voe-webhook-longhorn',
        'RoleBinding/longhorn-system/voe-webhook-longhorn',
      ],
    );
    // RBAC takes the new bindings from its own informers: wait until they apply, as a pod started after
    // `kubectl apply` would meet them (a refused first list would only be retried, but is logged).
    const authorization = cp.kubeConfig.makeApiClient(AuthorizationV1Api);
    const { user, groups } = serviceAccount('voe-webhook');
    await eventually(
      async () => {
        for (const [group, resource, namespace, name] of [
          ['', 'persistentvolumeclaims', undefined, undefined],
          ['kubevirt.io', 'kubevirts', 'harvester-system', 'kubevirt'],
          ['longhorn.io', 'engines', 'longhorn-system', undefined],
        ] as const) {
          const review = await authorization.createSubjectAccessReview({
            body: {
              spec: {
                user,
                groups: [...groups, 'system:authenticated'],
                resourceAttributes: {
                  group,
                  resource,
                  verb: 'watch',
                  ...(namespace ? { namespace } : {}),
                  ...(name ? { name } : {}),
                },
              },
            },
          });
          if (!review.status?.allowed) return false;
        }
        return true;
      },
      30_000,
      'the roles apply to voe-webhook',
    );
    // The account reads only the Settings and the KubeVirt CR voe uses: not Harvester's other
    // Settings (ssl-certificates carries the UI's private key), not all of them at once.
    const allowed = async (
      group: string,
      resource: string,
      verb: string,
      name?: string,
      namespace?: string,
    ): Promise<boolean> =>
      (
        await authorization.createSubjectAccessReview({
          body: {
            spec: {
              user,
              groups: [...groups, 'system:authenticated'],
              resourceAttributes: {
                group,
                resource,
                verb,
                ...(name ? { name } : {}),
                ...(namespace ? { namespace } : {}),
              },
            },
          },
        })
      ).status?.allowed === true;
    assert.isTrue(
      await allowed('harvesterhci.io', 'settings', 'get', 'csi-online-expand-validation'),
    );
    assert.isFalse(
      await allowed('harvesterhci.io', 'settings', 'get', 'ssl-certificates'),
      'another Harvester Setting is readable',
    );
    assert.isFalse(
      await allowed('harvesterhci.io', 'settings', 'list'),
      'every Harvester Setting can be listed',
    );
    assert.isFalse(
      await allowed('kubevirt.io', 'kubevirts', 'list', undefined, 'harvester-system'),
    );
    assert.isFalse(
      await allowed(
        'longhorn.io',
        'settings',
        'get',
        'backup-target-credential-secret',
        'longhorn-system',
      ),
    );
    const files = await writeServingFiles();
    onCleanup(() => files.cleanup());
    const ca = files.ca.certificatePem;

    // As the webhook's ServiceAccount: every informer (PVCs, StorageClasses, CSIDrivers, VMs, VMIs, Settings,
    // the KubeVirt CR, Longhorn Volumes/Engines/Settings: the control plane serves longhorn.io, so
    // --longhorn auto watches them) lists and watches, and reviews are answered from the caches.
    const granted = await startServe(
      await serviceAccountKubeconfig('voe-webhook'),
      files.certFile,
      files.keyFile,
    );
    onCleanup(() => {
      if (granted.child.exitCode === null) granted.child.kill('SIGKILL');
    });
    await eventually(
      async () =>
        (await httpsRequest(granted.port, ca, { path: '/readyz', method: 'GET' })).status === 200,
      30_000,
      '/readyz 200 as voe-webhook',
    );
    const review = await httpsRequest(granted.port, ca, {
      path: '/validate/pvc-resize',
      body: JSON.stringify(pvcReview('rbac-1')),
    });
    assert.deepStrictEqual((review.json() as { response: unknown }).response, {
      uid: 'rbac-1',
      allowed: true,
    });
    assert.strictEqual(await stopServe(granted.child), 0, granted.stderr());
    assert.notMatch(granted.stdout(), /informer list\/watch failed/, 'no informer was refused');
    const synced = /"watching":(\[[^\]]*\]).*"msg":"admission caches synced"/.exec(
      granted.stdout(),
    );
    assert.ok(synced, 'the caches-synced line is logged');
    assert.deepStrictEqual(JSON.parse(synced[1]!), [
      'persistentvolumeclaims',
      'storageclasses.storage.k8s.io',
      'virtualmachines.kubevirt.io',
      'virtualmachineinstances.kubevirt.io',
      'kubevirts.kubevirt.io/kubevirt in harvester-system',
      'settings.harvesterhci.io/csi-online-expand-validation',
      'volumes.longhorn.io in longhorn-system',
      'engines.longhorn.io in longhorn-system',
      'settings.longhorn.io/current-longhorn-version in longhorn-system',
      'csidrivers.storage.k8s.io',
    ]);

    // Another ServiceAccount of the namespace, bound to nothing: the informers are refused, /readyz
    // stays 503 and the log names each refused list.
    const denied = await startServe(
      await serviceAccountKubeconfig('unbound'),
      files.certFile,
      files.keyFile,
    );
    onCleanup(() => {
      if (denied.child.exitCode === null) denied.child.kill('SIGKILL');
    });
    await eventually(
      () =>
        /informer list\/watch failed/.test(denied.stdout()) &&
        /persistentvolumeclaims/.test(denied.stdout()),
      30_000,
      'a refused informer in the log',
    );
    const probe = await httpsRequest(denied.port, ca, { path: '/readyz', method: 'GET' });
    assert.strictEqual(probe.status, 503);
    assert.match(probe.body, /caches not synced/);
    assert.match(denied.stdout(), /forbidden/i);
    assert.strictEqual(await stopServe(denied.child), 0, denied.stderr());
  });

  it('voe check runs with the same ServiceAccount (get/list only); unbound it exits 2 naming the refused read', async () => {
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    // A claim the API server would let grow (Bound, StorageClass allowing expansion), so the verdict is
    // the webhook's (no VM uses it: allowed offline); the PV binder's part is written by hand here.
    await cp.kubeConfig.makeApiClient(StorageV1Api).createStorageClass({
      body: {
        metadata: { name: 'rbac-expandable' },
        provisioner: 'driver.longhorn.io',
        allowVolumeExpansion: true,
      },
    });
    await core.createNamespacedPersistentVolumeClaim({
      namespace: 'default',
      body: {
        metadata: { name: 'rbac-disk' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'rbac-expandable',
          resources: { requests: { storage: '1Gi' } },
        },
      },
    });
    const claim = await core.readNamespacedPersistentVolumeClaim({
      namespace: 'default',
      name: 'rbac-disk',
    });
    claim.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
    await core.replaceNamespacedPersistentVolumeClaimStatus({
      namespace: 'default',
      name: 'rbac-disk',
      body: claim,
    });
    const check = (
      kubeconfig: string,
    ): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      run(['check', 'default/rbac-disk', '--size', '2Gi', '--kubeconfig', kubeconfig]);
    const granted = await check(await serviceAccountKubeconfig('voe-webhook'));
    assert.strictEqual(granted.code, 0, granted.stderr);
    assert.match(granted.stdout, /allowed/);
    const denied = await check(await serviceAccountKubeconfig('unbound'));
    assert.strictEqual(denied.code, 2, denied.stdout);
    assert.match(denied.stderr, /CHECK_API_FAILED: reading .* failed \(HTTP 403\)/);
  });
});
