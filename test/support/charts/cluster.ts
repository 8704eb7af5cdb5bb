import { after, before } from 'mocha';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import {
  installCrds,
  startControlPlane,
  type ControlPlane,
} from '../../../src/controlplane/index.js';
import { readCrds } from '../../../src/controlplane/install-crds.js';
import { startTimeoutFromEnv } from '../../../src/controlplane/start-timeout-from-env.js';
import { isAlreadyExists } from '../../../src/kube/index.js';
import { TEST_START_TIMEOUT_MS, testCacheDir } from '../use-control-plane.js';

/**
 * A real kube-apiserver + etcd for the `describe` this is called in: started in its `before` with
 * the CRDs of manifests/crds and the ones the charts' optional objects need (cert-manager's and the
 * Prometheus Operator's, test/support/charts/crds), stopped in its `after`. Read `.current` in tests.
 */
export function useChartControlPlane(): { readonly current: ControlPlane } {
  let cp: ControlPlane | undefined;
  before(async function () {
    this.timeout(15 * 60_000);
    cp = await startControlPlane({
      cacheDir: testCacheDir(),
      env: process.env,
      startTimeoutMs: startTimeoutFromEnv(process.env) ?? TEST_START_TIMEOUT_MS,
      onProgress: (line) => process.stderr.write(`${line}\n`),
    });
    await installCrds(cp.kubeConfig);
    await installCrds(
      cp.kubeConfig,
      await readCrds(
        fileURLToPath(new URL('../../../../test/support/charts/crds/', import.meta.url)),
      ),
    );
  });
  after(async () => {
    await cp?.stop();
  });
  return {
    get current(): ControlPlane {
      if (!cp) throw new Error('the control plane is not started (call inside a test)');
      return cp;
    },
  };
}

/** Server-side apply of `object` as `fieldManager`: with dryRun, the API server validates and admits it but stores nothing. */
export async function serverSideApply(
  kubeConfig: KubeConfig,
  object: KubernetesObject,
  options: { dryRun?: boolean } = {},
): Promise<KubernetesObject> {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  return await api.patch(
    object,
    undefined,
    options.dryRun ? 'All' : undefined,
    'voe-chart-tests',
    true,
    PatchStrategy.ServerSideApply,
  );
}

/** Creates the namespaces (those that exist are left). */
export async function ensureNamespaces(kubeConfig: KubeConfig, names: string[]): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  for (const name of names) {
    await core.createNamespace({ body: { metadata: { name } } }).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  }
}

/** The objects of a YAML file of the repository (e.g. manifests/addon.yaml). */
export async function readManifest(path: string): Promise<KubernetesObject[]> {
  const text = await readFile(new URL(`../../../../${path}`, import.meta.url), 'utf8');
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
}

/** A ServiceAccount as RBAC sees it: its user name and groups. */
export interface Account {
  namespace: string;
  name: string;
  user: string;
  groups: string[];
}

export function serviceAccount(namespace: string, name: string): Account {
  return {
    namespace,
    name,
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: [
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ],
  };
}

/** One request a SubjectAccessReview asks about. */
export interface Access {
  verb: string;
  resource: string;
  group?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** "get secrets/voe-webhook-tls in voe-system", for messages. */
export function describeAccess(access: Access): string {
  const resource = `${access.resource}${access.subresource ? `/${access.subresource}` : ''}${access.group ? `.${access.group}` : ''}`;
  return `${access.verb} ${resource}${access.name ? `/${access.name}` : ''}${access.namespace ? ` in ${access.namespace}` : ' (cluster-wide)'}`;
}

/** Whether RBAC allows `account` the `access` (a SubjectAccessReview, as the API server's authorizer answers it). */
export async function isAllowed(
  kubeConfig: KubeConfig,
  account: Account,
  access: Access,
): Promise<boolean> {
  const review = await kubeConfig.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
    body: {
      spec: {
        user: account.user,
        groups: account.groups,
        resourceAttributes: {
          verb: access.verb,
          resource: access.resource,
          group: access.group ?? '',
          ...(access.subresource ? { subresource: access.subresource } : {}),
          ...(access.namespace ? { namespace: access.namespace } : {}),
          ...(access.name ? { name: access.name } : {}),
        },
      },
    },
  });
  return review.status?.allowed === true;
}
