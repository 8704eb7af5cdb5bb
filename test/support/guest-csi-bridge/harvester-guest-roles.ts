import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { serverSideApply } from '../charts/cluster.js';

const HARVESTER_LABELS = {
  'app.kubernetes.io/component': 'apiserver',
  'app.kubernetes.io/name': 'harvester',
  'app.kubernetes.io/part-of': 'harvester',
};

/**
 * The two ClusterRoles every Harvester ships for guest clusters (harvester/harvester
 * deploy/charts/harvester/templates/rbac.yaml, as of Dec 2026; docs/csi.md
 * "Host RBAC"), rule for rule; csi-driver's as in v1.8.0, which added the VolumeRemoteBackup and
 * VolumeRemoteRestore kinds and the snapshot classes and statuses. Applied here only because the test API server is
 * not a Harvester: the chart under test must never render them.
 */
export const HARVESTER_GUEST_CLUSTER_ROLES: KubernetesObject[] = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'harvesterhci.io:cloudprovider', labels: HARVESTER_LABELS },
    rules: [
      {
        apiGroups: ['loadbalancer.harvesterhci.io'],
        resources: ['loadbalancers'],
        verbs: ['get', 'list', 'watch', 'update', 'create', 'delete'],
      },
      {
        apiGroups: ['subresources.kubevirt.io'],
        resources: [
          'virtualmachines/addvolume',
          'virtualmachines/removevolume',
          'virtualmachineinstances/addvolume',
          'virtualmachineinstances/removevolume',
        ],
        verbs: ['get', 'update'],
      },
      {
        apiGroups: ['kubevirt.io'],
        resources: ['virtualmachines', 'virtualmachineinstances'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      {
        apiGroups: [''],
        resources: ['persistentvolumeclaims', 'persistentvolumeclaims/status'],
        verbs: ['*'],
      },
    ],
  } as KubernetesObject,
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'harvesterhci.io:csi-driver', labels: HARVESTER_LABELS },
    rules: [
      {
        apiGroups: ['storage.k8s.io'],
        resources: ['storageclasses', 'volumeattachments'],
        verbs: ['get', 'list', 'watch'],
      },
      {
        apiGroups: ['harvesterhci.io'],
        resources: [
          'networkfilesystems',
          'networkfilesystems/status',
          'volumeremotebackups',
          'volumeremoterestores',
        ],
        verbs: ['*'],
      },
      {
        apiGroups: ['harvesterhci.io'],
        resources: ['settings'],
        resourceNames: ['csi-online-expand-validation', 'csi-driver-config'],
        verbs: ['get', 'list'],
      },
      {
        apiGroups: ['longhorn.io'],
        resources: ['volumes', 'volumes/status'],
        verbs: ['get', 'list'],
      },
      {
        apiGroups: ['snapshot.storage.k8s.io'],
        resources: [
          'volumesnapshots',
          'volumesnapshotcontents',
          'volumesnapshotclasses',
          'volumesnapshots/status',
          'volumesnapshotcontents/status',
        ],
        verbs: ['*'],
      },
      { apiGroups: ['kubevirt.io'], resources: ['virtualmachines'], verbs: ['patch'] },
    ],
  } as KubernetesObject,
];

/** Applies Harvester's two guest-cluster ClusterRoles (what a Harvester already has). */
export async function applyHarvesterGuestRoles(kubeConfig: KubeConfig): Promise<void> {
  for (const role of HARVESTER_GUEST_CLUSTER_ROLES) await serverSideApply(kubeConfig, role);
}

/**
 * The bindings Harvester's kubeconfig generator (pkg/api/kubeconfig/generate_handler.go) makes for
 * a guest cluster's ServiceAccount `name` in `namespace`, both named `<namespace>-<name>`: a
 * RoleBinding in the namespace to harvesterhci.io:cloudprovider and a ClusterRoleBinding to
 * harvesterhci.io:csi-driver.
 */
export function harvesterGuestBindings(namespace: string, name: string): KubernetesObject[] {
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  const roleRef = (role: string) => ({
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: role,
  });
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${namespace}-${name}`, namespace },
      roleRef: roleRef('harvesterhci.io:cloudprovider'),
      subjects,
    } as KubernetesObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${namespace}-${name}` },
      roleRef: roleRef('harvesterhci.io:csi-driver'),
      subjects,
    } as KubernetesObject,
  ];
}
