/**
 * The guest-cluster chart of the CSI driver (charts/voe-csi), rendered for the guest and, with
 * target=host, for the Harvester side: helm lint and template pass with default and non-default
 * values; the driver's command line, sidecars, CSIDriver and StorageClass are what a CSI install
 * needs; every object applies with a server-side dry run on a real kube-apiserver; and each
 * ServiceAccount (guest controller, guest node, host identity) is allowed what it needs and denied
 * a written list of what it must not do.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { join } from 'node:path';
import type { V1Container, V1DaemonSet, V1Deployment } from '@kubernetes/client-node';
import {
  describeAccess,
  ensureNamespaces,
  isAllowed,
  serverSideApply,
  serviceAccount,
  useChartControlPlane,
  type Access,
  type Account,
} from '../../support/charts/cluster.js';
import { eventually } from '../../support/eventually.js';
import {
  GUEST_CHART,
  objectsOf,
  oneOf,
  repoRoot,
  useHelm,
  type Helm,
  type Rendered,
} from '../../support/charts/render.js';

const NS = 'voe-csi';
const VM_NS = 'guest-vms';

const VALUE_SETS: Array<[string, Record<string, unknown> | undefined]> = [
  ['guest, default values', undefined],
  [
    'guest, a kubeconfig given, default StorageClass on a host class, k3s kubelet, custom driver name',
    {
      driverName: 'csi.voe.example.com',
      image: { repository: 'registry.example.com/voe-node', digest: `sha256:${'b'.repeat(64)}` },
      imagePullSecrets: [{ name: 'regcred' }],
      hostKubeconfig: { secretName: 'host-kubeconfig', content: 'apiVersion: v1\nkind: Config\n' },
      kubeletDir: '/var/lib/rancher/k3s/agent/kubelet',
      controller: {
        replicas: 3,
        logLevel: 'debug',
        nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
      },
      storageClass: {
        name: 'voe',
        isDefault: true,
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'WaitForFirstConsumer',
        hostStorageClass: 'longhorn-ssd',
      },
    },
  ],
  ['host side', { target: 'host', host: { namespace: VM_NS } }],
  [
    'host side, no token Secret, another account',
    {
      target: 'host',
      host: { namespace: VM_NS, serviceAccount: 'guest-a-csi', createTokenSecret: false },
    },
  ],
];

function containers(workload: V1Deployment | V1DaemonSet): Map<string, V1Container> {
  return new Map(workload.spec!.template.spec!.containers.map((c) => [c.name, c]));
}

describe('the guest-cluster CSI chart (lint, template, dry runs, RBAC)', function () {
  this.timeout(20 * 60_000);
  const cp = useChartControlPlane();
  let helm: Helm;

  before(async () => {
    helm = await useHelm();
    await ensureNamespaces(cp.current.kubeConfig, [NS, VM_NS]);
  });
  after(() => helm?.cleanup());

  const render = (values?: Record<string, unknown>) =>
    helm.template(GUEST_CHART, {
      namespace: NS,
      release: 'voe-csi',
      ...(values ? { values } : {}),
    });

  for (const [name, values] of VALUE_SETS) {
    describe(name, () => {
      let objects: Rendered[];
      before(async () => {
        objects = await render(values);
      });

      it('helm lint --strict passes', async () => {
        const args = ['lint', '--strict', join(repoRoot(), GUEST_CHART)];
        if (values) args.push('-f', await helm.writeValues(values));
        const result = await helm.run(args);
        assert.strictEqual(result.code, 0, result.stdout + result.stderr);
      });

      it('every rendered object applies with a server-side dry run', async () => {
        const refused: string[] = [];
        for (const object of objects) {
          try {
            await serverSideApply(cp.current.kubeConfig, object, { dryRun: true });
          } catch (error) {
            refused.push(
              `${object.kind}/${object.metadata?.name}: ${String((error as { body?: unknown }).body ?? error)}`,
            );
          }
        }
        assert.deepStrictEqual(refused, []);
      });

      if (values?.['target'] === 'host') {
        it('renders only the host side: the ClusterRole harvesterhci.io:csi-driver with flat verbs lists and resourceNames, the driver identity and its bindings', () => {
          assert.sameMembers(
            [...new Set(objects.map((o) => o.kind))],
            [
              'ClusterRole',
              'ClusterRoleBinding',
              'Role',
              'RoleBinding',
              'ServiceAccount',
              ...((values['host'] as Record<string, unknown>)['createTokenSecret'] === false
                ? []
                : ['Secret']),
            ],
          );
          const role = oneOf(objects, 'ClusterRole', 'harvesterhci.io:csi-driver');
          const rules = role['rules'] as Array<{
            apiGroups: string[];
            resources: string[];
            verbs: unknown[];
            resourceNames?: string[];
          }>;
          for (const rule of rules)
            for (const verb of rule.verbs) assert.isString(verb, 'a flat verbs list');
          const settings = rules.find((rule) => rule.resources.includes('settings'))!;
          assert.deepStrictEqual(settings.apiGroups, ['harvesterhci.io']);
          assert.deepStrictEqual(settings.verbs, ['get', 'list']);
          assert.includeMembers(settings.resourceNames!, [
            'csi-online-expand-validation',
            'csi-driver-config',
          ]);
          for (const object of objects.filter((o) => o.metadata?.namespace !== undefined))
            assert.strictEqual(object.metadata!.namespace, VM_NS);
        });
        return;
      }

      it('a CSIDriver that attaches, a StorageClass that allows expansion, the controller with the provisioner, attacher and resizer sidecars, the node plugin with node-driver-registrar and livenessprobe, voe csi on the socket they share', () => {
        const driver = (values?.['driverName'] as string | undefined) ?? 'driver.harvesterhci.io';
        const kubeletDir = (values?.['kubeletDir'] as string | undefined) ?? '/var/lib/kubelet';
        const csiDriver = oneOf(objects, 'CSIDriver', driver) as unknown as {
          spec: Record<string, unknown>;
        };
        assert.strictEqual(csiDriver.spec['attachRequired'], true);
        assert.strictEqual(csiDriver.spec['fsGroupPolicy'], 'ReadWriteOnceWithFSType');
        const [storageClass] = objectsOf(objects, 'StorageClass') as unknown as Array<
          Record<string, unknown>
        >;
        assert.strictEqual(storageClass!['provisioner'], driver);
        assert.strictEqual(storageClass!['allowVolumeExpansion'], true);

        const controller = containers(
          oneOf(objects, 'Deployment', 'voe-csi-controller') as unknown as V1Deployment,
        );
        const node = containers(
          oneOf(objects, 'DaemonSet', 'voe-csi-node') as unknown as V1DaemonSet,
        );
        assert.sameMembers(
          [...controller.keys()],
          ['voe-csi', 'csi-provisioner', 'csi-attacher', 'csi-resizer', 'liveness-probe'],
        );
        assert.sameMembers(
          [...node.keys()],
          ['voe-csi', 'node-driver-registrar', 'liveness-probe'],
        );
        for (const voe of [controller.get('voe-csi')!, node.get('voe-csi')!]) {
          // The command line the driver is written against.
          assert.deepStrictEqual(voe.args!.slice(0, 7), [
            'csi',
            '--endpoint',
            'unix:///csi/csi.sock',
            '--node-id',
            '$(NODE_ID)',
            '--kubeconfig',
            '/etc/voe/host/kubeconfig',
          ]);
          assert.strictEqual(
            voe.env?.find((e) => e.name === 'NODE_ID')?.valueFrom?.fieldRef?.fieldPath,
            'spec.nodeName',
          );
          assert.strictEqual(voe.livenessProbe?.httpGet?.path, '/healthz');
          assert.include(
            voe.volumeMounts!.map((m) => m.mountPath),
            '/etc/voe/host',
          );
        }
        assert.include(controller.get('csi-resizer')!.args ?? [], '--timeout=1m50s');
        for (const sidecar of ['csi-provisioner', 'csi-attacher', 'csi-resizer'])
          assert.include(controller.get(sidecar)!.args ?? [], '--leader-election');
        assert.include(
          node.get('node-driver-registrar')!.args ?? [],
          `--kubelet-registration-path=${kubeletDir}/plugins/${driver}/csi.sock`,
        );
        const kubeletMount = node
          .get('voe-csi')!
          .volumeMounts!.find((m) => m.mountPath === kubeletDir);
        assert.strictEqual(kubeletMount?.mountPropagation, 'Bidirectional');
        // Only the node plugin's own container is privileged; the controller's containers are locked down.
        for (const container of [
          ...controller.values(),
          node.get('node-driver-registrar')!,
          node.get('liveness-probe')!,
        ]) {
          assert.isNotTrue(container.securityContext?.privileged, container.name);
          assert.isTrue(container.securityContext?.readOnlyRootFilesystem, container.name);
          assert.deepStrictEqual(
            container.securityContext?.capabilities?.drop,
            ['ALL'],
            container.name,
          );
        }
        if (values?.['hostKubeconfig']) {
          const secret = oneOf(objects, 'Secret', 'host-kubeconfig') as unknown as {
            stringData: Record<string, string>;
          };
          assert.strictEqual(secret.stringData['kubeconfig'], 'apiVersion: v1\nkind: Config\n');
        } else assert.deepStrictEqual(objectsOf(objects, 'Secret'), []);
      });
    });
  }

  describe('least privilege: a SubjectAccessReview matrix per ServiceAccount', () => {
    before(async () => {
      const rbacKinds = [
        'ServiceAccount',
        'Role',
        'RoleBinding',
        'ClusterRole',
        'ClusterRoleBinding',
      ];
      for (const object of [
        ...(await render()),
        ...(await render({ target: 'host', host: { namespace: VM_NS } })),
      ])
        if (rbacKinds.includes(object.kind ?? ''))
          await serverSideApply(cp.current.kubeConfig, object);
      await eventually(
        () =>
          isAllowed(cp.current.kubeConfig, serviceAccount(VM_NS, 'voe-csi'), {
            verb: 'patch',
            group: 'kubevirt.io',
            resource: 'virtualmachines',
            namespace: VM_NS,
          }),
        30_000,
        "the chart's RBAC in force",
      );
    });

    const NOBODY: Access[] = [
      { verb: 'get', resource: 'secrets', namespace: NS, name: 'voe-csi-host-kubeconfig' },
      { verb: 'list', resource: 'secrets', namespace: 'kube-system' },
      { verb: 'list', resource: 'secrets' },
      { verb: 'create', resource: 'pods', subresource: 'exec', namespace: NS },
      { verb: 'create', resource: 'pods', subresource: 'exec', namespace: VM_NS },
      { verb: 'create', resource: 'pods', namespace: NS },
      { verb: 'delete', resource: 'pods', namespace: VM_NS },
      { verb: 'update', resource: 'nodes' },
      { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: NS },
      { verb: 'impersonate', resource: 'users' },
      { verb: 'bind', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
      { verb: 'create', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
      { verb: 'delete', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
      { verb: 'patch', group: 'kubevirt.io', resource: 'virtualmachines', namespace: 'default' },
      {
        verb: 'update',
        group: 'harvesterhci.io',
        resource: 'settings',
        name: 'csi-online-expand-validation',
      },
      { verb: 'get', group: 'harvesterhci.io', resource: 'settings', name: 'ssl-certificates' },
      { verb: 'list', group: 'harvesterhci.io', resource: 'settings' },
      {
        verb: 'patch',
        group: 'admissionregistration.k8s.io',
        resource: 'validatingwebhookconfigurations',
        name: 'voe',
      },
    ];
    const MATRIX: Array<[Account, Access[], Access[]]> = [
      [
        serviceAccount(NS, 'voe-csi-controller'),
        [
          { verb: 'create', resource: 'persistentvolumes' },
          { verb: 'delete', resource: 'persistentvolumes' },
          { verb: 'patch', resource: 'persistentvolumes' },
          { verb: 'watch', resource: 'persistentvolumeclaims' },
          {
            verb: 'patch',
            resource: 'persistentvolumeclaims',
            subresource: 'status',
            namespace: 'default',
          },
          { verb: 'list', resource: 'pods' },
          { verb: 'create', resource: 'events', namespace: 'default' },
          { verb: 'list', group: 'storage.k8s.io', resource: 'storageclasses' },
          { verb: 'list', group: 'storage.k8s.io', resource: 'csinodes' },
          { verb: 'patch', group: 'storage.k8s.io', resource: 'volumeattachments' },
          {
            verb: 'patch',
            group: 'storage.k8s.io',
            resource: 'volumeattachments',
            subresource: 'status',
          },
          { verb: 'create', group: 'coordination.k8s.io', resource: 'leases', namespace: NS },
          {
            verb: 'update',
            group: 'coordination.k8s.io',
            resource: 'leases',
            namespace: NS,
            name: 'external-resizer-driver-harvesterhci-io',
          },
        ],
        [
          ...NOBODY,
          { verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'default' },
          {
            verb: 'create',
            group: 'coordination.k8s.io',
            resource: 'leases',
            namespace: 'kube-system',
          },
          { verb: 'delete', group: 'storage.k8s.io', resource: 'storageclasses' },
          { verb: 'create', group: 'storage.k8s.io', resource: 'csidrivers' },
        ],
      ],
      [
        serviceAccount(NS, 'voe-csi-node'),
        [],
        [
          ...NOBODY,
          { verb: 'get', resource: 'nodes' },
          { verb: 'list', resource: 'persistentvolumeclaims' },
          { verb: 'get', resource: 'persistentvolumes' },
          { verb: 'patch', group: 'storage.k8s.io', resource: 'volumeattachments' },
        ],
      ],
      [
        serviceAccount(VM_NS, 'voe-csi'),
        [
          ...['get', 'list', 'watch', 'create', 'delete', 'patch'].map((verb) => ({
            verb,
            resource: 'persistentvolumeclaims',
            namespace: VM_NS,
          })),
          { verb: 'list', resource: 'pods', namespace: VM_NS },
          { verb: 'get', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
          { verb: 'patch', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
          {
            verb: 'watch',
            group: 'kubevirt.io',
            resource: 'virtualmachineinstances',
            namespace: VM_NS,
          },
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachines',
            subresource: 'addvolume',
            namespace: VM_NS,
          },
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachines',
            subresource: 'removevolume',
            namespace: VM_NS,
          },
          ...['csi-online-expand-validation', 'csi-driver-config', 'server-version'].map(
            (name) => ({ verb: 'get', group: 'harvesterhci.io', resource: 'settings', name }),
          ),
          { verb: 'get', group: 'storage.k8s.io', resource: 'storageclasses' },
          { verb: 'list', group: 'storage.k8s.io', resource: 'volumeattachments' },
        ],
        [
          ...NOBODY,
          { verb: 'get', resource: 'secrets', namespace: VM_NS, name: 'voe-csi-token' },
          { verb: 'list', resource: 'secrets', namespace: VM_NS },
          { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'default' },
          { verb: 'create', resource: 'persistentvolumeclaims', namespace: 'harvester-system' },
          {
            verb: 'update',
            resource: 'persistentvolumeclaims',
            subresource: 'status',
            namespace: VM_NS,
          },
          { verb: 'update', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachines',
            subresource: 'addvolume',
            namespace: 'default',
          },
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachineinstances',
            subresource: 'console',
            namespace: VM_NS,
          },
          { verb: 'delete', group: 'storage.k8s.io', resource: 'volumeattachments' },
          { verb: 'list', group: 'longhorn.io', resource: 'volumes', namespace: 'longhorn-system' },
        ],
      ],
    ];
    for (const [account, needs, mustNot] of MATRIX) {
      it(`${account.namespace}/${account.name}: allowed ${needs.length} requests it needs, denied ${mustNot.length} it must not make`, async () => {
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
  });
});
