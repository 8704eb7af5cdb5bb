/**
 * The host chart on a real kube-apiserver: every rendered object (default and non-default values,
 * CRDs and hooks included) and the Harvester Addon apply with a server-side dry run; each
 * ServiceAccount's RBAC allows what it needs and denies a written list of what it must not do
 * (SubjectAccessReviews); and the chart's own command lines work with only that RBAC: voe certs
 * ensure (the hook Job's and the CronJob's arguments) creates and renews the Secrets and the
 * caBundle, and voe serve (the Deployment's arguments) becomes ready and serves the certificate
 * the API server is told to trust, picking up a renewed one without a restart; voe enable with the
 * tracker's arguments (as its ServiceAccount) adds ExpandDisks and the Setting, and voe disable
 * with the pre-delete hook's arguments (as the hook's) removes them.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AdmissionregistrationV1Api,
  CoreV1Api,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { HOST_NAMESPACES, HOST_VALUE_SETS } from '../../support/charts/host-values.js';
import {
  describeAccess,
  ensureNamespaces,
  isAllowed,
  readManifest,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
  type Access,
  type Account,
} from '../../support/charts/cluster.js';
import {
  HOST_CHART,
  hookOf,
  objectsOf,
  oneOf,
  useHelm,
  type Helm,
  type Rendered,
} from '../../support/charts/render.js';
import { servedCertificate, writeSecretVolume } from '../../support/charts/secret-volume.js';
import { eventually } from '../../support/eventually.js';
import { runVoe, VOE_MAIN } from '../../support/run-voe.js';
import { onCleanup } from '../../support/cleanup.js';
import { isNotFound, requestJson, resourcePath } from '../../../src/kube/index.js';

const NS = 'voe-system';
const RBAC_KINDS = ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];

/** The container arguments of a rendered workload (Deployment, Job or CronJob). */
function argsOf(object: Rendered): string[] {
  const spec = object['spec'] as Record<string, unknown>;
  const template = (
    object.kind === 'CronJob'
      ? ((spec['jobTemplate'] as Record<string, unknown>)['spec'] as Record<string, unknown>)[
          'template'
        ]
      : spec['template']
  ) as { spec: { containers: Array<{ args: string[] }> } };
  return template.spec.containers[0]!.args;
}

/** `args` with each --flag=value of `replace` given the new value (it must be there). */
function withFlags(args: string[], replace: Record<string, string>): string[] {
  const result = [...args];
  for (const [flag, value] of Object.entries(replace)) {
    const index = result.findIndex((arg) => arg.startsWith(`${flag}=`));
    assert.isAtLeast(index, 0, `${flag} among ${args.join(' ')}`);
    result[index] = `${flag}=${value}`;
  }
  return result;
}

describe('the host chart on a real control plane (dry runs, RBAC, its command lines)', function () {
  this.timeout(20 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;
  let defaults: Rendered[];

  before(async () => {
    helm = await useHelm();
    // With tracker.enable (off by default), so that voe enable's rights and the voe disable hook
    // are there to check; without it the tracker has neither (host-chart.test.ts).
    defaults = await helm.template(HOST_CHART, {
      includeCrds: true,
      values: { tracker: { enable: true } },
    });
    await ensureNamespaces(cp.current.kubeConfig, HOST_NAMESPACES);
  });
  after(() => helm?.cleanup());

  const renderings: Array<[string, Record<string, unknown> | undefined]> = [
    ['default values', undefined],
    ...Object.entries(HOST_VALUE_SETS),
  ];
  for (const [name, values] of renderings) {
    it(`every object rendered from ${name} (CRDs and hooks included) applies with a server-side dry run`, async () => {
      const objects = await helm.template(HOST_CHART, {
        includeCrds: true,
        ...(values ? { values } : {}),
      });
      assert.isAtLeast(objects.length, 10);
      const refused: string[] = [];
      for (const object of objects) {
        try {
          const answer = await serverSideApply(cp.current.kubeConfig, object, { dryRun: true });
          assert.strictEqual(answer.kind, object.kind);
        } catch (error) {
          refused.push(
            `${object.kind}/${object.metadata?.name}: ${String((error as { body?: unknown }).body ?? error)}`,
          );
        }
      }
      assert.deepStrictEqual(refused, []);
    });
  }

  it('manifests/addon.yaml (the Harvester Addon and its namespace) applies with a server-side dry run', async () => {
    for (const object of await readManifest('manifests/addon.yaml')) {
      const answer = await serverSideApply(cp.current.kubeConfig, object, { dryRun: true });
      assert.strictEqual(answer.kind, object.kind);
    }
  });

  describe('least privilege: a SubjectAccessReview matrix per ServiceAccount (default values, tracker.enable on)', () => {
    before(async () => {
      // The chart's identities and permissions, for real (the hooks' too).
      for (const object of defaults.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
        await serverSideApply(cp.current.kubeConfig, stripHook(object));
      await eventually(
        () =>
          isAllowed(cp.current.kubeConfig, serviceAccount(NS, 'voe-certs-hook'), {
            verb: 'patch',
            group: 'admissionregistration.k8s.io',
            resource: 'validatingwebhookconfigurations',
            name: 'voe',
          }),
        30_000,
        "the chart's RBAC in force",
      );
    });

    const secret = (verb: string, namespace: string, name?: string): Access => ({
      verb,
      resource: 'secrets',
      namespace,
      ...(name ? { name } : {}),
    });
    const webhookConfiguration = (verb: string, name?: string): Access => ({
      verb,
      group: 'admissionregistration.k8s.io',
      resource: 'validatingwebhookconfigurations',
      ...(name ? { name } : {}),
    });
    const exec = (namespace: string): Access => ({
      verb: 'create',
      resource: 'pods',
      subresource: 'exec',
      namespace,
    });
    const vm = (verb: string, namespace = 'default'): Access => ({
      verb,
      group: 'kubevirt.io',
      resource: 'virtualmachines',
      namespace,
    });

    /** What no voe identity may do. */
    const NOBODY: Access[] = [
      secret('get', 'kube-system', 'any'),
      secret('list', 'kube-system'),
      secret('list', ''),
      secret('get', 'longhorn-system', 'longhorn-crypto'),
      secret('get', 'harvester-system', 'harvester-webhook-tls'),
      exec(NS),
      exec('default'),
      exec('harvester-system'),
      { verb: 'create', resource: 'pods', subresource: 'attach', namespace: 'default' },
      { verb: 'create', resource: 'pods', namespace: NS },
      { verb: 'delete', resource: 'pods', namespace: 'default' },
      vm('create'),
      vm('update'),
      vm('patch'),
      vm('delete'),
      {
        verb: 'update',
        group: 'kubevirt.io',
        resource: 'virtualmachineinstances',
        namespace: 'default',
      },
      {
        verb: 'update',
        group: 'subresources.kubevirt.io',
        resource: 'virtualmachines',
        subresource: 'addvolume',
        namespace: 'default',
      },
      { verb: 'update', resource: 'persistentvolumeclaims', namespace: 'default' },
      { verb: 'patch', resource: 'persistentvolumeclaims', namespace: 'default' },
      { verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'default' },
      {
        verb: 'update',
        group: 'harvesterhci.io',
        resource: 'settings',
        name: 'csi-online-expand-validation',
      },
      { verb: 'get', group: 'harvesterhci.io', resource: 'settings', name: 'ssl-certificates' },
      { verb: 'list', group: 'harvesterhci.io', resource: 'settings' },
      { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: NS },
      { verb: 'impersonate', resource: 'users' },
      { verb: 'escalate', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      {
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        resource: 'rolebindings',
        namespace: NS,
      },
      webhookConfiguration('create'),
      webhookConfiguration('delete', 'voe'),
      webhookConfiguration('patch', 'harvester-validator'),
      {
        verb: 'patch',
        group: 'admissionregistration.k8s.io',
        resource: 'mutatingwebhookconfigurations',
        name: 'voe',
      },
      { verb: 'update', group: 'longhorn.io', resource: 'volumes', namespace: 'longhorn-system' },
      { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
    ];
    const CERTS_NEEDS: Access[] = [
      secret('get', NS, 'voe-webhook-ca'),
      secret('get', NS, 'voe-webhook-tls'),
      secret('update', NS, 'voe-webhook-ca'),
      secret('update', NS, 'voe-webhook-tls'),
      // RBAC cannot limit create to names (the object does not exist yet).
      secret('create', NS),
      webhookConfiguration('get', 'voe'),
      webhookConfiguration('patch', 'voe'),
    ];
    const CERTS_MUST_NOT: Access[] = [
      ...NOBODY,
      secret('get', NS, 'other'),
      secret('list', NS),
      secret('watch', NS),
      secret('delete', NS, 'voe-webhook-ca'),
      secret('create', 'kube-system'),
      secret('update', 'kube-system', 'voe-webhook-tls'),
      webhookConfiguration('list'),
      { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'default' },
    ];
    const crd = (verb: string, name?: string): Access => ({
      verb,
      group: 'apiextensions.k8s.io',
      resource: 'customresourcedefinitions',
      ...(name ? { name } : {}),
    });
    const CRDS_NEEDS: Access[] = [
      crd('get', 'volumeexpansions.storage.voe.dev'),
      crd('patch', 'volumeexpansions.storage.voe.dev'),
      crd('update', 'volumeexpansions.storage.voe.dev'),
      // RBAC cannot limit create to names (the object does not exist yet).
      crd('create'),
    ];
    const CRDS_MUST_NOT: Access[] = [
      // Creating voe's CRD when it is missing is this hook's job.
      ...NOBODY.filter((access) => access.resource !== 'customresourcedefinitions'),
      crd('delete', 'volumeexpansions.storage.voe.dev'),
      crd('list'),
      crd('watch'),
      crd('deletecollection'),
      ...['get', 'patch', 'update', 'delete'].flatMap((verb) => [
        crd(verb, 'virtualmachines.kubevirt.io'),
        crd(verb, 'settings.harvesterhci.io'),
        crd(verb, 'validatingwebhookconfigurations.admissionregistration.k8s.io'),
      ]),
      {
        verb: 'create',
        group: 'storage.voe.dev',
        resource: 'volumeexpansions',
        namespace: 'default',
      },
      { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'default' },
    ];
    const kubevirtCr = (verb: string, name = 'kubevirt'): Access => ({
      verb,
      group: 'kubevirt.io',
      resource: 'kubevirts',
      namespace: 'harvester-system',
      name,
    });
    const expandSetting = (verb: string, name = 'csi-online-expand-validation'): Access => ({
      verb,
      group: 'harvesterhci.io',
      resource: 'settings',
      ...(name ? { name } : {}),
    });
    const lease = (verb: string, namespace = NS, name?: string): Access => ({
      verb,
      group: 'coordination.k8s.io',
      resource: 'leases',
      namespace,
      ...(name ? { name } : {}),
    });
    const event = (verb: string, namespace: string): Access => ({
      verb,
      group: 'events.k8s.io',
      resource: 'events',
      namespace,
    });
    /** voe watch --enable (tracker.enable on): its informers, its writes, voe enable's. */
    const TRACKER_NEEDS: Access[] = [
      ...['get', 'list', 'watch'].flatMap((verb) => [
        { verb, resource: 'persistentvolumeclaims' },
        { verb, resource: 'persistentvolumes' },
        { verb, resource: 'pods' },
        { verb, group: 'kubevirt.io', resource: 'virtualmachines' },
        { verb, group: 'kubevirt.io', resource: 'virtualmachineinstances' },
        { verb, group: 'storage.voe.dev', resource: 'volumeexpansions' },
        kubevirtCr(verb),
      ]),
      { verb: 'create', group: 'storage.voe.dev', resource: 'volumeexpansions', namespace: 'vms' },
      {
        verb: 'update',
        group: 'storage.voe.dev',
        resource: 'volumeexpansions',
        subresource: 'status',
        namespace: 'vms',
        name: 'vm1-disk-0-20gi',
      },
      event('create', 'vms'),
      event('patch', 'vms'),
      lease('create'),
      lease('get', NS, 'voe-vmwatcher'),
      lease('update', NS, 'voe-vmwatcher'),
      kubevirtCr('update'),
      expandSetting('get'),
      expandSetting('create', ''),
    ];
    const TRACKER_MUST_NOT: Access[] = [
      ...NOBODY,
      secret('get', NS, 'voe-webhook-tls'),
      {
        verb: 'update',
        group: 'kubevirt.io',
        resource: 'virtualmachineinstances',
        namespace: 'vms',
      },
      {
        verb: 'patch',
        group: 'kubevirt.io',
        resource: 'virtualmachineinstances',
        namespace: 'vms',
      },
      { verb: 'update', resource: 'persistentvolumes', name: 'pv-1' },
      { verb: 'update', resource: 'pods', namespace: 'vms' },
      { verb: 'update', group: 'storage.voe.dev', resource: 'volumeexpansions', namespace: 'vms' },
      { verb: 'delete', group: 'storage.voe.dev', resource: 'volumeexpansions', namespace: 'vms' },
      {
        verb: 'delete',
        group: 'kubevirt.io',
        resource: 'kubevirts',
        namespace: 'harvester-system',
        name: 'kubevirt',
      },
      kubevirtCr('get', 'other'),
      kubevirtCr('update', 'other'),
      { verb: 'list', group: 'kubevirt.io', resource: 'kubevirts' },
      expandSetting('update'),
      expandSetting('delete'),
      expandSetting('get', 'ssl-certificates'),
      lease('update', NS, 'other'),
      lease('update', 'kube-system', 'kube-controller-manager'),
      lease('create', 'kube-system'),
      { verb: 'create', resource: 'events', namespace: 'vms' },
      { verb: 'delete', group: 'events.k8s.io', resource: 'events', namespace: 'vms' },
    ];
    /** voe disable (the pre-delete hook): the KubeVirt CR and the one Setting, and Events on them. */
    const DISABLE_NEEDS: Access[] = [
      kubevirtCr('get'),
      kubevirtCr('update'),
      expandSetting('get'),
      expandSetting('update'),
      expandSetting('delete'),
      event('create', 'harvester-system'),
      event('patch', 'harvester-system'),
      event('create', 'default'),
      event('patch', 'default'),
    ];
    const DISABLE_MUST_NOT: Access[] = [
      // Updating the Setting voe enable created is this hook's job.
      ...NOBODY.filter((access) => !(access.resource === 'settings' && access.verb === 'update')),
      kubevirtCr('get', 'other'),
      kubevirtCr('delete'),
      { verb: 'list', group: 'kubevirt.io', resource: 'kubevirts' },
      expandSetting('create', ''),
      expandSetting('update', 'ssl-certificates'),
      expandSetting('delete', 'ssl-certificates'),
      { verb: 'list', resource: 'persistentvolumeclaims' },
      { verb: 'get', resource: 'pods', namespace: 'default' },
      { verb: 'create', group: 'storage.voe.dev', resource: 'volumeexpansions', namespace: 'vms' },
      event('create', 'vms'),
      lease('create'),
    ];
    const MATRIX: Array<[Account, Access[], Access[]]> = [
      [
        serviceAccount(NS, 'voe-webhook'),
        [
          ...['get', 'list', 'watch'].map((verb) => ({ verb, resource: 'persistentvolumeclaims' })),
          ...['list', 'watch'].flatMap((verb) => [
            { verb, group: 'storage.k8s.io', resource: 'storageclasses' },
            { verb, group: 'storage.k8s.io', resource: 'csidrivers' },
            { verb, group: 'kubevirt.io', resource: 'virtualmachines' },
            { verb, group: 'kubevirt.io', resource: 'virtualmachineinstances' },
            {
              verb,
              group: 'harvesterhci.io',
              resource: 'settings',
              name: 'csi-online-expand-validation',
            },
            {
              verb,
              group: 'kubevirt.io',
              resource: 'kubevirts',
              namespace: 'harvester-system',
              name: 'kubevirt',
            },
            { verb, group: 'longhorn.io', resource: 'volumes', namespace: 'longhorn-system' },
            { verb, group: 'longhorn.io', resource: 'engines', namespace: 'longhorn-system' },
            {
              verb,
              group: 'longhorn.io',
              resource: 'settings',
              namespace: 'longhorn-system',
              name: 'current-longhorn-version',
            },
          ]),
          // voe serve --registration, when its namespace is being deleted.
          { verb: 'get', resource: 'namespaces', name: NS },
          webhookConfiguration('delete', 'voe'),
        ],
        [
          // Deleting its own configuration is voe serve --registration's job.
          ...NOBODY.filter(
            (access) =>
              !(
                access.resource === 'validatingwebhookconfigurations' &&
                access.verb === 'delete' &&
                access.name === 'voe'
              ),
          ),
          webhookConfiguration('delete', 'other'),
          webhookConfiguration('delete'),
          { verb: 'get', resource: 'namespaces', name: 'default' },
          { verb: 'delete', resource: 'namespaces', name: NS },
          secret('get', NS, 'voe-webhook-tls'),
          secret('list', NS),
          webhookConfiguration('patch', 'voe'),
          webhookConfiguration('get', 'voe'),
          { verb: 'list', group: 'kubevirt.io', resource: 'kubevirts' },
          {
            verb: 'get',
            group: 'kubevirt.io',
            resource: 'kubevirts',
            namespace: 'harvester-system',
            name: 'other',
          },
          {
            verb: 'get',
            group: 'longhorn.io',
            resource: 'settings',
            namespace: 'longhorn-system',
            name: 'backup-target-credential-secret',
          },
          { verb: 'list', group: 'longhorn.io', resource: 'volumes', namespace: 'default' },
          { verb: 'list', resource: 'pods' },
        ],
      ],
      [serviceAccount(NS, 'voe-tracker'), TRACKER_NEEDS, TRACKER_MUST_NOT],
      [serviceAccount(NS, 'voe-disable-hook'), DISABLE_NEEDS, DISABLE_MUST_NOT],
      [serviceAccount(NS, 'voe-certs'), CERTS_NEEDS, CERTS_MUST_NOT],
      [serviceAccount(NS, 'voe-certs-hook'), CERTS_NEEDS, CERTS_MUST_NOT],
      [serviceAccount(NS, 'voe-crds-hook'), CRDS_NEEDS, CRDS_MUST_NOT],
    ];
    for (const [account, needs, mustNot] of MATRIX) {
      it(`${account.name}: allowed ${needs.length} requests it needs, denied ${mustNot.length} it must not make`, async () => {
        const wrong: string[] = [];
        for (const access of needs)
          if (!(await isAllowed(cp.current.kubeConfig, account, access)))
            wrong.push(`denied: ${describeAccess(access)}`);
        for (const access of mustNot)
          if (await isAllowed(cp.current.kubeConfig, account, access))
            wrong.push(`allowed: ${describeAccess(access)}`);
        assert.deepStrictEqual(wrong, []);
      });
    }

    it("the chart's ServiceAccounts are the only subjects of its bindings, and no role grants a wildcard", () => {
      const accounts = objectsOf(defaults, 'ServiceAccount').map(
        (sa) => `${sa.metadata!.namespace}/${sa.metadata!.name}`,
      );
      assert.sameMembers(accounts, [
        `${NS}/voe-webhook`,
        `${NS}/voe-certs`,
        `${NS}/voe-certs-hook`,
        `${NS}/voe-crds-hook`,
        `${NS}/voe-tracker`,
        `${NS}/voe-disable-hook`,
      ]);
      for (const binding of [
        ...objectsOf(defaults, 'RoleBinding'),
        ...objectsOf(defaults, 'ClusterRoleBinding'),
      ]) {
        for (const subject of binding['subjects'] as Array<{
          kind: string;
          name: string;
          namespace: string;
        }>) {
          assert.strictEqual(subject.kind, 'ServiceAccount');
          assert.include(accounts, `${subject.namespace}/${subject.name}`);
        }
      }
      for (const role of [...objectsOf(defaults, 'Role'), ...objectsOf(defaults, 'ClusterRole')]) {
        for (const rule of role['rules'] as Array<Record<string, string[]>>) {
          for (const field of ['apiGroups', 'resources', 'verbs'])
            assert.notInclude(rule[field] ?? [], '*', `${role.metadata!.name} ${field}`);
        }
      }
    });
  });

  describe("the chart's command lines, run as its ServiceAccounts", () => {
    let dir: string;
    let webhook: ChildProcess | undefined;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'voe-chart-run-'));
      for (const object of defaults.filter((o) => RBAC_KINDS.includes(o.kind ?? '')))
        await serverSideApply(cp.current.kubeConfig, stripHook(object));
      // The webhook configuration, for real (nothing here resizes: the Service it names is not reachable).
      await serverSideApply(
        cp.current.kubeConfig,
        oneOf(defaults, 'ValidatingWebhookConfiguration', 'voe'),
      );
    });
    after(async () => {
      if (webhook && webhook.exitCode === null && webhook.signalCode === null) {
        const exited = new Promise((resolve) => webhook!.once('exit', resolve));
        webhook.kill('SIGTERM');
        webhook.kill('SIGTERM');
        await exited;
      }
      await cp.current.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .deleteValidatingWebhookConfiguration({ name: 'voe' })
        .catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    });

    /** `voe ARGS` as `account` (a kubeconfig with its identity), checked to exit 0. */
    async function runAs(account: Account, args: string[]): Promise<string> {
      const { path } = await cp.current.mintKubeConfig(account.user, account.groups);
      const result = await runVoe([...args, '--kubeconfig', path], { timeout: 120_000 });
      assert.strictEqual(result.code, 0, `voe ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    }

    const readSecret = async (name: string): Promise<Record<string, string>> => {
      const secret = await cp.current.kubeConfig
        .makeApiClient(CoreV1Api)
        .readNamespacedSecret({ namespace: NS, name });
      return Object.fromEntries(
        Object.entries(secret.data ?? {}).map(([key, value]) => [
          key,
          Buffer.from(value, 'base64').toString('utf8'),
        ]),
      );
    };
    const caBundles = async (): Promise<string[]> => {
      const configuration = await cp.current.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .readValidatingWebhookConfiguration({ name: 'voe' });
      return (configuration.webhooks ?? []).map((w) =>
        Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString('utf8'),
      );
    };

    it('voe certs ensure with the hook Job’s arguments (as voe-certs-hook) creates the CA and serving Secrets and sets every caBundle; with the CronJob’s (as voe-certs) it keeps them, then renews a certificate that is due; voe serve with the Deployment’s arguments (as voe-webhook) becomes ready and serves the certificate the caBundle trusts, and the renewed one without a restart', async () => {
      const hookArgs = argsOf(oneOf(defaults, 'Job', 'voe-certs-hook'));
      const cronArgs = argsOf(oneOf(defaults, 'CronJob', 'voe-certs'));
      assert.deepStrictEqual(hookArgs, cronArgs);
      assert.strictEqual(
        hookOf(oneOf(defaults, 'Job', 'voe-certs-hook')),
        'pre-install,pre-upgrade,post-install,post-upgrade',
      );

      // A short-lived certificate first, so that the CronJob's run finds it due.
      const first = await runAs(
        serviceAccount(NS, 'voe-certs-hook'),
        withFlags(hookArgs, { '--cert-validity-days': '2', '--renew-before-days': '1' }),
      );
      assert.match(first, /^CA: created, valid until /m);
      assert.match(
        first,
        /^serving certificate: created, valid until .*, for voe-webhook, voe-webhook\.voe-system, voe-webhook\.voe-system\.svc, voe-webhook\.voe-system\.svc\.cluster\.local$/m,
      );
      assert.match(first, /^ValidatingWebhookConfiguration voe: caBundle updated$/m);
      const ca = await readSecret('voe-webhook-ca');
      const tls = await readSecret('voe-webhook-tls');
      assert.deepStrictEqual(await caBundles(), [ca['ca.crt'], ca['ca.crt'], ca['ca.crt']]);
      assert.strictEqual(tls['ca.crt'], ca['ca.crt']);

      // voe serve as the Deployment runs it, as voe-webhook, on the Secret as the kubelet mounts it.
      const tlsDir = join(dir, 'tls');
      await writeSecretVolume(tlsDir, tls);
      const deploymentArgs = argsOf(oneOf(defaults, 'Deployment', 'voe-webhook'));
      const args = withFlags(deploymentArgs, {
        '--port': '0',
        '--tls-cert-file': join(tlsDir, 'tls.crt'),
        '--tls-key-file': join(tlsDir, 'tls.key'),
      });
      const account = serviceAccount(NS, 'voe-webhook');
      const { path } = await cp.current.mintKubeConfig(account.user, account.groups);
      webhook = spawn(
        process.execPath,
        [VOE_MAIN, ...args, '--bind-address', '127.0.0.1', '--kubeconfig', path],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      webhook.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      onCleanup(() => {
        if (webhook?.exitCode !== null) process.stderr.write(stderr.slice(-4000));
      });
      await eventually(
        () => {
          // Ended instead (e.g. an argument it no longer takes): fail at once, with what it said.
          if (webhook!.exitCode !== null)
            assert.fail(`voe serve exited ${webhook!.exitCode}: ${stderr}`);
          return /webhooks at https:\/\/127\.0\.0\.1:\d+/.test(stderr);
        },
        60_000,
        'voe serve listening',
      );
      const port = Number(/webhooks at https:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)![1]);
      const servername = 'voe-webhook.voe-system.svc';
      const [bundle] = await caBundles();
      const readyz = async (): Promise<string> => {
        return await new Promise((resolve, reject) => {
          request({ host: '127.0.0.1', port, path: '/readyz', ca: bundle, servername }, (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve(`${res.statusCode} ${body}`));
          })
            .on('error', reject)
            .end();
        });
      };
      await eventually(
        async () => (await readyz()) === '200 ok',
        60_000,
        'voe serve ready with the chart’s RBAC alone',
      );
      const served = await servedCertificate(port, bundle!, servername);
      assert.strictEqual(
        served.serialNumber.toLowerCase(),
        new X509Certificate(tls['tls.crt']!).serialNumber.toLowerCase(),
      );

      // The CronJob's run, as voe-certs: the 2-day certificate is due (30 days ahead), the CA is not.
      const renewed = await runAs(serviceAccount(NS, 'voe-certs'), cronArgs);
      assert.match(renewed, /^CA: kept, /m);
      assert.match(renewed, /^serving certificate: replaced \(it expires at .*, within 30 days\)/m);
      assert.match(renewed, /^ValidatingWebhookConfiguration voe: caBundle in-sync$/m);
      const newTls = await readSecret('voe-webhook-tls');
      assert.notStrictEqual(newTls['tls.crt'], tls['tls.crt']);
      await writeSecretVolume(tlsDir, newTls);
      const newSerial = new X509Certificate(newTls['tls.crt']!).serialNumber.toLowerCase();
      await eventually(
        async () =>
          (await servedCertificate(port, bundle!, servername)).serialNumber.toLowerCase() ===
          newSerial,
        30_000,
        'the renewed certificate served',
      );
      assert.strictEqual(await readyz(), '200 ok');
      assert.isNull(webhook.exitCode, 'the same voe serve, never restarted');

      // Nothing due: a run changes nothing.
      const again = await runAs(serviceAccount(NS, 'voe-certs'), cronArgs);
      assert.match(again, /^CA: kept, /m);
      assert.match(again, /^serving certificate: kept, /m);
      assert.deepStrictEqual(await readSecret('voe-webhook-tls'), newTls);
    });

    it('voe enable with the tracker’s arguments (as voe-tracker: what voe watch --enable runs first) adds ExpandDisks and creates the Setting; voe disable with the pre-delete hook Job’s arguments (as voe-disable-hook) removes exactly that', async () => {
      const kubeConfig = cp.current.kubeConfig;
      // The Setting webhook names a Service nothing answers here (failurePolicy Fail): it goes.
      await kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .deleteValidatingWebhookConfiguration({ name: 'voe' })
        .catch(() => undefined);
      const kubeVirtPath = resourcePath({
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'kubevirts',
        namespace: 'harvester-system',
        name: 'kubevirt',
      });
      const settingPath = resourcePath({
        group: 'harvesterhci.io',
        version: 'v1beta1',
        plural: 'settings',
        name: 'csi-online-expand-validation',
      });
      await serverSideApply(kubeConfig, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'KubeVirt',
        metadata: { namespace: 'harvester-system', name: 'kubevirt' },
        spec: { configuration: { developerConfiguration: { featureGates: ['LiveMigration'] } } },
      } as KubernetesObject);
      const gates = async (): Promise<string[]> =>
        (
          await requestJson<{
            spec?: { configuration?: { developerConfiguration?: { featureGates?: string[] } } };
          }>(kubeConfig, { method: 'GET', path: kubeVirtPath })
        ).spec?.configuration?.developerConfiguration?.featureGates ?? [];
      const setting = () =>
        requestJson<KubernetesObject>(kubeConfig, { method: 'GET', path: settingPath });

      const watchArgs = argsOf(oneOf(defaults, 'Deployment', 'voe-tracker'));
      assert.include(watchArgs, '--enable');
      const enableArgs = [
        'enable',
        ...watchArgs.filter((arg) =>
          /^--(kubevirt-namespace|kubevirt-name|setting-name)=/.test(arg),
        ),
      ];
      assert.lengthOf(enableArgs, 4);
      await runAs(serviceAccount(NS, 'voe-tracker'), enableArgs);
      assert.deepStrictEqual(await gates(), ['LiveMigration', 'ExpandDisks']);
      assert.strictEqual(
        (await setting()).metadata?.annotations?.['storage.voe.dev/created-by'],
        'voe enable',
      );

      const hook = oneOf(defaults, 'Job', 'voe-disable-hook');
      assert.strictEqual(hookOf(hook), 'pre-delete');
      await runAs(serviceAccount(NS, 'voe-disable-hook'), argsOf(hook));
      assert.deepStrictEqual(await gates(), ['LiveMigration']);
      const gone = await setting().then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.isTrue(isNotFound(gone), String(gone));
    });
  });
});

/** `object` without its Helm hook annotations: applied as a plain object. */
function stripHook(object: Rendered): KubernetesObject {
  const annotations = { ...(object.metadata?.annotations ?? {}) };
  for (const key of Object.keys(annotations))
    if (key.startsWith('helm.sh/hook')) delete annotations[key];
  return { ...object, metadata: { ...object.metadata, annotations } };
}
