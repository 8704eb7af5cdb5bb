import type { Helm, Rendered } from '../charts/render.js';
import { GUEST_CHART, objectsOf, OPTIONAL_APIS } from '../charts/render.js';

/** The API whose presence makes the chart render its VolumeSnapshotClass (the guest serves it: snapshot-crds.ts). */
const SNAPSHOT_CLASS_API = 'snapshot.storage.k8s.io/v1/VolumeSnapshotClass';

/** The controller pod's sidecars the guest cluster runs. */
export const CONTROLLER_SIDECARS = [
  'csi-provisioner',
  'csi-attacher',
  'csi-snapshotter',
  'csi-resizer',
] as const;
export type ControllerSidecar = (typeof CONTROLLER_SIDECARS)[number];

export interface ChartGuestObjects {
  /** Each sidecar's args as the chart's controller Deployment gives them. */
  sidecarArgs: Record<ControllerSidecar, string[]>;
  /** The CSIDriver, StorageClass and VolumeSnapshotClass the chart installs in the guest cluster. */
  clusterObjects: Rendered[];
  /** The controller's ServiceAccount (in `kube-system`) and the RBAC the chart gives it. */
  controllerAccess: Rendered[];
}

/** The controller pod's ServiceAccount, and the name of its ClusterRole, Role and bindings. */
export const CONTROLLER_ACCOUNT = 'voe-csi-controller';
const ACCESS_KINDS = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];

interface Container {
  name: string;
  args?: string[];
}

/**
 * charts/voe-csi rendered for a guest cluster (its defaults) that serves the snapshot API: the
 * controller Deployment's sidecar args, the cluster-scoped objects the driver needs (CSIDriver,
 * StorageClass, VolumeSnapshotClass) and the controller's ServiceAccount with its RBAC.
 */
export async function chartGuestObjects(helm: Helm): Promise<ChartGuestObjects> {
  const objects = await helm.template(GUEST_CHART, {
    namespace: 'kube-system',
    apiVersions: [...OPTIONAL_APIS, SNAPSHOT_CLASS_API],
  });
  const deployments = objectsOf(objects, 'Deployment');
  const containers = deployments.flatMap(
    (d) =>
      ((d as { spec?: { template?: { spec?: { containers?: Container[] } } } }).spec?.template?.spec
        ?.containers ?? []) as Container[],
  );
  const sidecarArgs = {} as Record<ControllerSidecar, string[]>;
  for (const name of CONTROLLER_SIDECARS) {
    const container = containers.find((c) => c.name === name);
    if (!container) throw new Error(`charts/voe-csi renders no ${name} container`);
    sidecarArgs[name] = container.args ?? [];
  }
  return {
    sidecarArgs,
    clusterObjects: [
      ...objectsOf(objects, 'CSIDriver'),
      ...objectsOf(objects, 'StorageClass'),
      ...objectsOf(objects, 'VolumeSnapshotClass'),
    ],
    controllerAccess: objects.filter(
      (o) => ACCESS_KINDS.includes(o.kind ?? '') && o.metadata?.name === CONTROLLER_ACCOUNT,
    ),
  };
}

/**
 * The chart's args of a sidecar run as a process beside the test's driver: its own socket and
 * kubeconfig instead of the pod's, and no leader election (one replica, no namespace to elect in).
 */
export function processArgs(chartArgs: string[], socket: string, kubeconfig: string): string[] {
  const kept = chartArgs.filter(
    (arg) =>
      !arg.startsWith('--csi-address') &&
      !arg.startsWith('--leader-election') &&
      !arg.startsWith('--kubeconfig'),
  );
  return [
    `--csi-address=${socket}`,
    `--kubeconfig=${kubeconfig}`,
    '--leader-election=false',
    ...kept,
  ];
}
