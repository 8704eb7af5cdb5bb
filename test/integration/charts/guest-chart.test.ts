/**
 * The guest-cluster chart of the CSI driver (charts/voe-csi), rendered for the guest and, with
 * target=host, for the Harvester side: helm lint and template pass with default and non-default
 * values; the driver's command line, sidecars, CSIDriver and StorageClass are what a CSI install
 * needs; every object applies with a server-side dry run on a real kube-apiserver; and each
 * ServiceAccount (guest controller, guest node, host identities) is allowed what it needs and
 * denied a written list of what it must not do. The host side renders nothing Harvester owns: its
 * guest-cluster ClusterRoles are applied from a fixture (as every Harvester has them) and only bound.
 */
import { after, before, describe, it } from 'mocha';
import { assert } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoreV1Api,
  StorageV1Api,
  type V1Container,
  type V1DaemonSet,
  type V1Deployment,
} from '@kubernetes/client-node';
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
import { parse } from 'yaml';
import { eventually } from '../../support/eventually.js';
import { assertHeapFits } from '../../support/charts/node-options.js';
import { applyHarvesterGuestRoles } from '../../support/guest-csi-bridge/harvester-guest-roles.js';
import {
  GUEST_CHART,
  OPTIONAL_APIS,
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
      hostKubeconfig: { secretName: 'host-kubeconfig', nodeSecretName: 'node-host-kubeconfig' },
      kubeletDir: '/var/lib/rancher/k3s/agent/kubelet',
      controller: {
        replicas: 3,
        nodeMonitor: false,
        logLevel: 'debug',
        nodeOptions: '--max-old-space-size=160 --max-semi-space-size=2',
        resources: { requests: { cpu: '20m', memory: '192Mi' }, limits: { memory: '256Mi' } },
        nodeSelector: { 'node-role.kubernetes.io/control-plane': 'true' },
      },
      node: { nodeOptions: '' },
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
      host: {
        namespace: VM_NS,
        serviceAccount: 'guest-a-csi',
        nodeServiceAccount: 'guest-a-csi-node',
        bindHarvesterRoles: false,
        createTokenSecret: false,
      },
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
        it("renders only the host side, nothing Harvester owns: its guest-cluster ClusterRoles are only bound (as Harvester binds a guest cluster), voe's additions are a ClusterRole and Roles of its own name", () => {
          const host = values['host'] as Record<string, unknown>;
          assert.sameMembers(
            [...new Set(objects.map((o) => o.kind))],
            [
              'ClusterRole',
              'ClusterRoleBinding',
              'Role',
              'RoleBinding',
              'ServiceAccount',
              ...(host['createTokenSecret'] === false ? [] : ['Secret']),
            ],
          );
          for (const object of objects)
            assert.notMatch(object.metadata?.name ?? '', /^harvesterhci\.io:/, object.kind);
          assert.deepStrictEqual(
            objectsOf(objects, 'ClusterRole').map((o) => o.metadata?.name),
            ['voe-csi-host', 'voe-csi-node-host'],
          );
          assert.deepStrictEqual(oneOf(objects, 'ClusterRole', 'voe-csi-node-host')['rules'], [
            { apiGroups: ['harvesterhci.io'], resources: ['networkfilesystems'], verbs: ['get'] },
          ]);
          assert.sameMembers(
            objectsOf(objects, 'Role').map((o) => o.metadata?.name),
            ['voe-csi-host', 'voe-csi-node-host'],
          );
          const role = oneOf(objects, 'ClusterRole', 'voe-csi-host');
          const rules = role['rules'] as Array<{
            apiGroups: string[];
            resources: string[];
            verbs: unknown[];
            resourceNames?: string[];
          }>;
          assert.deepStrictEqual(rules, [
            {
              apiGroups: ['harvesterhci.io'],
              resources: ['settings'],
              resourceNames: ['server-version', 'csi-driver-config'],
              verbs: ['get'],
            },
          ]);
          const harvesterBindings = objects
            .filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding')
            .map((o) => `${o.kind}->${(o['roleRef'] as { name: string }).name}`)
            .filter((binding) => binding.includes('harvesterhci.io:'));
          assert.sameMembers(
            harvesterBindings,
            host['bindHarvesterRoles'] === false
              ? []
              : [
                  'RoleBinding->harvesterhci.io:cloudprovider',
                  'ClusterRoleBinding->harvesterhci.io:csi-driver',
                ],
          );
          for (const object of objects.filter((o) => o.metadata?.namespace !== undefined))
            assert.strictEqual(object.metadata!.namespace, VM_NS);
        });
        return;
      }

      it('a CSIDriver that attaches, a StorageClass that allows expansion, the controller with the provisioner, attacher, snapshotter and resizer sidecars, the node plugin with node-driver-registrar and livenessprobe, voe csi on the socket they share, with a V8 heap within its memory limit', async () => {
        const defaults = parse(
          await readFile(join(repoRoot(), GUEST_CHART, 'values.yaml'), 'utf8'),
        ) as Record<'controller' | 'node', { nodeOptions?: string }>;
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
          [
            'voe-csi',
            'csi-provisioner',
            'csi-attacher',
            'csi-snapshotter',
            'csi-resizer',
            'liveness-probe',
          ],
        );
        assert.sameMembers(
          [...node.keys()],
          ['voe-csi', 'node-driver-registrar', 'liveness-probe'],
        );
        for (const [voe, services] of [
          [controller.get('voe-csi')!, 'controller'],
          [node.get('voe-csi')!, 'node'],
        ] as const) {
          const own = (values?.[services] as { nodeOptions?: string } | undefined)?.nodeOptions;
          assertHeapFits(voe, own ?? defaults[services].nodeOptions);
          // The command line the driver is written against: each pod serves only its own service.
          assert.deepStrictEqual(voe.args!.slice(0, 7), [
            'csi',
            '--endpoint',
            'unix:///csi/csi.sock',
            '--services',
            services,
            '--kubeconfig',
            '/etc/voe/host/kubeconfig',
          ]);
          // The node id is discovered from the MACs; the node name is only the fallback.
          assert.notInclude(voe.args!, '--node-id');
          assert.strictEqual(voe.livenessProbe?.httpGet?.path, '/healthz');
          // The host's reachability is a metric, never liveness.
          assert.deepStrictEqual(
            voe.args!.slice(
              voe.args!.indexOf('--metrics-port'),
              voe.args!.indexOf('--metrics-port') + 2,
            ),
            ['--metrics-port', '9810'],
          );
          assert.strictEqual(voe.ports?.find((p) => p.name === 'metrics')?.containerPort, 9810);
          assert.include(
            voe.volumeMounts!.map((m) => m.mountPath),
            '/etc/voe/host',
          );
        }
        // The node monitor runs in the controller (on unless turned off), never in the node plugin.
        const monitor = (values?.['controller'] as { nodeMonitor?: boolean } | undefined)
          ?.nodeMonitor;
        assert.strictEqual(
          controller.get('voe-csi')!.args!.includes('--node-monitor'),
          monitor ?? true,
        );
        assert.notInclude(node.get('voe-csi')!.args!, '--node-monitor');
        const nodeVoe = node.get('voe-csi')!;
        assert.deepStrictEqual(
          nodeVoe.args!.slice(
            nodeVoe.args!.indexOf('--node-name'),
            nodeVoe.args!.indexOf('--node-name') + 2,
          ),
          ['--node-name', '$(NODE_NAME)'],
        );
        assert.strictEqual(
          nodeVoe.env?.find((e) => e.name === 'NODE_NAME')?.valueFrom?.fieldRef?.fieldPath,
          'spec.nodeName',
        );
        for (const workload of [
          oneOf(objects, 'Deployment', 'voe-csi-controller') as unknown as V1Deployment,
          oneOf(objects, 'DaemonSet', 'voe-csi-node') as unknown as V1DaemonSet,
        ]) {
          const selector = workload.spec!.template.spec!.nodeSelector ?? {};
          assert.strictEqual(selector['kubernetes.io/os'], 'linux', workload.metadata?.name);
        }
        // Each pod mounts its own host credentials: the node plugin gets the node identity's.
        const secretOf = (workload: V1Deployment | V1DaemonSet): string | undefined =>
          workload.spec!.template.spec!.volumes!.find((v) => v.name === 'host-kubeconfig')?.secret
            ?.secretName;
        const kubeconfigs = values?.['hostKubeconfig'] as Record<string, string> | undefined;
        assert.strictEqual(
          secretOf(oneOf(objects, 'Deployment', 'voe-csi-controller') as unknown as V1Deployment),
          kubeconfigs?.['secretName'] ?? 'voe-csi-host-kubeconfig',
        );
        assert.strictEqual(
          secretOf(oneOf(objects, 'DaemonSet', 'voe-csi-node') as unknown as V1DaemonSet),
          kubeconfigs?.['nodeSecretName'] ?? 'voe-csi-node-host-kubeconfig',
        );
        // One set of sidecar releases (Dec 2026) for the guest Kubernetes the chart declares.
        const images = [...controller.values(), ...node.values()]
          .filter((c) => c.name !== 'voe-csi')
          .map((c) => c.image);
        assert.sameMembers(images, [
          'registry.k8s.io/sig-storage/csi-provisioner:v6.4.0',
          'registry.k8s.io/sig-storage/csi-attacher:v4.13.0',
          'registry.k8s.io/sig-storage/csi-snapshotter:v8.7.0',
          'registry.k8s.io/sig-storage/csi-resizer:v2.3.0',
          'registry.k8s.io/sig-storage/livenessprobe:v2.19.0',
          'registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.17.0',
          'registry.k8s.io/sig-storage/livenessprobe:v2.19.0',
        ]);
        assert.include(controller.get('csi-resizer')!.args ?? [], '--timeout=1m50s');
        for (const sidecar of ['csi-provisioner', 'csi-attacher', 'csi-snapshotter', 'csi-resizer'])
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
          assert.isFalse(container.securityContext?.allowPrivilegeEscalation, container.name);
          assert.strictEqual(
            container.securityContext?.seccompProfile?.type,
            'RuntimeDefault',
            container.name,
          );
        }
        // Host credentials only from existing Secrets: no token in Helm's release history.
        assert.deepStrictEqual(objectsOf(objects, 'Secret'), []);
      });
    });
  }

  describe('the VolumeSnapshotClass', () => {
    const SNAPSHOT_API = 'snapshot.storage.k8s.io/v1/VolumeSnapshotClass';
    const classes = async (
      values: Record<string, unknown> | undefined,
      apiVersions: string[],
    ): Promise<Rendered[]> =>
      objectsOf(
        await helm.template(GUEST_CHART, {
          namespace: NS,
          release: 'voe-csi',
          apiVersions,
          ...(values ? { values } : {}),
        }),
        'VolumeSnapshotClass',
      );

    it('is rendered for the driver when the guest serves the snapshot API, with the host class as its parameter when one is set', async () => {
      const [plain, ...others] = await classes(undefined, [...OPTIONAL_APIS, SNAPSHOT_API]);
      assert.lengthOf(others, 0);
      assert.strictEqual(plain?.metadata?.name, 'harvester-snapshot');
      assert.strictEqual(plain?.['driver'], 'driver.harvesterhci.io');
      assert.strictEqual(plain?.['deletionPolicy'], 'Delete');
      assert.isUndefined(plain?.['parameters']);
      assert.isUndefined(plain?.metadata?.annotations);
      const [named] = await classes(
        {
          volumeSnapshotClass: {
            name: 'guest-snap',
            isDefault: true,
            deletionPolicy: 'Retain',
            hostSnapshotClass: 'longhorn-snapshot',
          },
        },
        [...OPTIONAL_APIS, SNAPSHOT_API],
      );
      assert.strictEqual(named?.metadata?.name, 'guest-snap');
      assert.strictEqual(named?.['deletionPolicy'], 'Retain');
      assert.deepStrictEqual(named?.['parameters'], { hostSnapshotClass: 'longhorn-snapshot' });
      assert.strictEqual(
        named?.metadata?.annotations?.['snapshot.storage.kubernetes.io/is-default-class'],
        'true',
      );
    });

    it('is not rendered when the guest does not serve the snapshot API, or when told not to', async () => {
      assert.lengthOf(await classes(undefined, OPTIONAL_APIS), 0);
      assert.lengthOf(
        await classes({ volumeSnapshotClass: { create: false } }, [...OPTIONAL_APIS, SNAPSHOT_API]),
        0,
      );
    });
  });

  describe('replacing harvester-csi-driver (docs/install.md "Replacing harvester-csi-driver")', () => {
    const HARVESTER_RELEASE = 'harvester-csi-driver';
    let dir: string;
    let kubeconfigFile: string;
    let core: CoreV1Api;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'voe-csi-migration-'));
      kubeconfigFile = join(dir, 'kubeconfig');
      await writeFile(kubeconfigFile, cp.current.kubeConfig.exportConfig(), { mode: 0o600 });
      core = cp.current.kubeConfig.makeApiClient(CoreV1Api);
      // Harvester's chart as far as the objects both charts want go (harvester-csi-driver's
      // chart: CSIDriver attachRequired, podInfoOnMount, fsGroupPolicy ReadWriteOnceWithFSType;
      // StorageClass harvester with allowVolumeExpansion, Delete, Immediate, the default class
      // as its chart's defaultStorageClass helper makes it on a fresh install), installed by Helm.
      const chart = join(dir, 'harvester-csi-driver');
      await mkdir(join(chart, 'templates'), { recursive: true });
      await writeFile(
        join(chart, 'Chart.yaml'),
        'apiVersion: v2\nname: harvester-csi-driver\nversion: 0.1.25\n',
      );
      await writeFile(
        join(chart, 'templates', 'objects.yaml'),
        [
          'apiVersion: storage.k8s.io/v1',
          'kind: CSIDriver',
          'metadata: {name: driver.harvesterhci.io}',
          'spec: {attachRequired: true, podInfoOnMount: true, fsGroupPolicy: ReadWriteOnceWithFSType}',
          '---',
          'apiVersion: storage.k8s.io/v1',
          'kind: StorageClass',
          'metadata:',
          '  name: harvester',
          '  annotations: {storageclass.kubernetes.io/is-default-class: "true"}',
          'provisioner: driver.harvesterhci.io',
          'allowVolumeExpansion: true',
          'reclaimPolicy: Delete',
          'volumeBindingMode: Immediate',
          '',
        ].join('\n'),
      );
      const installed = await helm.run([
        'install',
        HARVESTER_RELEASE,
        chart,
        '--namespace',
        'kube-system',
        '--kubeconfig',
        kubeconfigFile,
      ]);
      assert.strictEqual(installed.code, 0, installed.stderr);
    });

    after(async () => {
      await helm?.run([
        'uninstall',
        'voe-csi',
        '-n',
        'kube-system',
        '--kubeconfig',
        kubeconfigFile,
      ]);
      await core?.deletePersistentVolume({ name: 'pvc-made-by-harvester' }).catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("Helm refuses voe-csi while Harvester's release owns the CSIDriver and StorageClass; after its uninstall, voe-csi installs, harvester stays the default StorageClass, and the volume Harvester's driver made is untouched", async () => {
      // A volume Harvester's driver provisioned before the switch (its volume id: the host PVC's name).
      const pv = await core.createPersistentVolume({
        body: {
          metadata: { name: 'pvc-made-by-harvester' },
          spec: {
            capacity: { storage: '1Gi' },
            accessModes: ['ReadWriteOnce'],
            persistentVolumeReclaimPolicy: 'Delete',
            storageClassName: 'harvester',
            volumeMode: 'Filesystem',
            csi: { driver: 'driver.harvesterhci.io', volumeHandle: 'pvc-made-by-harvester' },
          },
        },
      });
      const install = () =>
        helm.run([
          'install',
          'voe-csi',
          join(repoRoot(), GUEST_CHART),
          '--namespace',
          'kube-system',
          '--set',
          'storageClass.isDefault=true',
          '--kubeconfig',
          kubeconfigFile,
        ]);
      const refused = await install();
      assert.notStrictEqual(refused.code, 0);
      assert.match(refused.stderr, /invalid ownership metadata|cannot be imported/);

      const uninstalled = await helm.run([
        'uninstall',
        HARVESTER_RELEASE,
        '-n',
        'kube-system',
        '--kubeconfig',
        kubeconfigFile,
      ]);
      assert.strictEqual(uninstalled.code, 0, uninstalled.stderr);
      const installed = await install();
      assert.strictEqual(installed.code, 0, installed.stderr);

      const storage = cp.current.kubeConfig.makeApiClient(StorageV1Api);
      const driver = await storage.readCSIDriver({ name: 'driver.harvesterhci.io' });
      assert.strictEqual(driver.metadata?.annotations?.['meta.helm.sh/release-name'], 'voe-csi');
      assert.strictEqual(driver.spec.attachRequired, true);
      const storageClass = await storage.readStorageClass({ name: 'harvester' });
      assert.strictEqual(storageClass.provisioner, 'driver.harvesterhci.io');
      assert.strictEqual(
        storageClass.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'],
        'true',
        'still the default StorageClass, as it was under Harvester',
      );
      const kept = await core.readPersistentVolume({ name: 'pvc-made-by-harvester' });
      assert.strictEqual(kept.metadata?.uid, pv.metadata?.uid);
      assert.strictEqual(kept.metadata?.resourceVersion, pv.metadata?.resourceVersion);
    });
  });

  describe('least privilege: a SubjectAccessReview matrix per ServiceAccount', () => {
    before(async () => {
      const rbacKinds = [
        'ServiceAccount',
        'Role',
        'RoleBinding',
        'ClusterRole',
        'ClusterRoleBinding',
      ];
      await applyHarvesterGuestRoles(cp.current.kubeConfig);
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
          // voe csi's node monitor: Nodes and PVs watched, a dead Node tainted, its Lease.
          { verb: 'watch', resource: 'nodes' },
          { verb: 'patch', resource: 'nodes' },
          { verb: 'watch', resource: 'persistentvolumes' },
          {
            verb: 'update',
            group: 'coordination.k8s.io',
            resource: 'leases',
            namespace: NS,
            name: 'voe-csi-node-monitor',
          },
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
          // csi-snapshotter's and csi-provisioner's (a volume restored from a snapshot).
          { verb: 'watch', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshotclasses' },
          { verb: 'get', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshots' },
          { verb: 'update', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshotcontents' },
          {
            verb: 'patch',
            group: 'snapshot.storage.k8s.io',
            resource: 'volumesnapshotcontents',
            subresource: 'status',
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
          { verb: 'create', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshots' },
          { verb: 'delete', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshotcontents' },
          { verb: 'delete', group: 'snapshot.storage.k8s.io', resource: 'volumesnapshotclasses' },
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
          ...['get', 'list', 'watch', 'create', 'patch', 'delete'].map((verb) => ({
            verb,
            group: 'harvesterhci.io',
            resource: 'networkfilesystems',
            namespace: 'harvester-system',
          })),
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
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachineinstances',
            subresource: 'removevolume',
            namespace: VM_NS,
          },
          ...['csi-online-expand-validation', 'csi-driver-config', 'server-version'].map(
            (name) => ({ verb: 'get', group: 'harvesterhci.io', resource: 'settings', name }),
          ),
          { verb: 'get', group: 'storage.k8s.io', resource: 'storageclasses' },
          { verb: 'list', group: 'storage.k8s.io', resource: 'volumeattachments' },
          ...['get', 'list', 'create', 'delete'].map((verb) => ({
            verb,
            group: 'snapshot.storage.k8s.io',
            resource: 'volumesnapshots',
            namespace: VM_NS,
          })),
          ...['volumeremotebackups', 'volumeremoterestores'].flatMap((resource) =>
            ['get', 'list', 'create', 'delete'].map((verb) => ({
              verb,
              group: 'harvesterhci.io',
              resource,
              namespace: VM_NS,
            })),
          ),
        ],
        [
          ...NOBODY,
          { verb: 'get', resource: 'secrets', namespace: VM_NS, name: 'voe-csi-token' },
          { verb: 'list', resource: 'secrets', namespace: VM_NS },
          { verb: 'get', resource: 'persistentvolumeclaims', namespace: 'default' },
          { verb: 'create', resource: 'persistentvolumeclaims', namespace: 'harvester-system' },
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
        ],
      ],
      [
        serviceAccount(VM_NS, 'voe-csi-node'),
        [
          {
            verb: 'list',
            group: 'kubevirt.io',
            resource: 'virtualmachineinstances',
            namespace: VM_NS,
          },
          {
            verb: 'get',
            group: 'kubevirt.io',
            resource: 'virtualmachineinstances',
            namespace: VM_NS,
          },
          { verb: 'get', resource: 'persistentvolumeclaims', namespace: VM_NS },
          {
            verb: 'get',
            group: 'harvesterhci.io',
            resource: 'networkfilesystems',
            namespace: 'harvester-system',
          },
        ],
        [
          ...NOBODY,
          ...['list', 'patch', 'create', 'delete'].map((verb) => ({
            verb,
            group: 'harvesterhci.io',
            resource: 'networkfilesystems',
            namespace: 'harvester-system',
          })),
          { verb: 'patch', group: 'kubevirt.io', resource: 'virtualmachines', namespace: VM_NS },
          { verb: 'create', resource: 'persistentvolumeclaims', namespace: VM_NS },
          { verb: 'patch', resource: 'persistentvolumeclaims', namespace: VM_NS },
          { verb: 'delete', resource: 'persistentvolumeclaims', namespace: VM_NS },
          { verb: 'list', resource: 'pods', namespace: VM_NS },
          {
            verb: 'update',
            group: 'subresources.kubevirt.io',
            resource: 'virtualmachines',
            subresource: 'addvolume',
            namespace: VM_NS,
          },
          { verb: 'get', group: 'harvesterhci.io', resource: 'settings', name: 'server-version' },
          { verb: 'get', group: 'storage.k8s.io', resource: 'storageclasses' },
          {
            verb: 'create',
            group: 'snapshot.storage.k8s.io',
            resource: 'volumesnapshots',
            namespace: VM_NS,
          },
          {
            verb: 'create',
            group: 'harvesterhci.io',
            resource: 'volumeremotebackups',
            namespace: VM_NS,
          },
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
