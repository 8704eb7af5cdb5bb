import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../../kube/index.js';
import { Informer } from '../../kube/index.js';
import type { Logger } from '../../log/index.js';
import type { HostVmi } from '../host/host-objects.js';
import type { GuestNode, GuestPv } from './guest-objects.js';
import { NODE_ID_ANNOTATION } from './node-monitor-facts.js';

type Obj<T> = T & KubernetesObject;

/** What the node monitor watches: the guest's Nodes and PersistentVolumes, the host namespace's VMIs. */
export interface MonitorCaches {
  nodes: Informer<Obj<GuestNode>>;
  pvs: Informer<Obj<GuestPv>>;
  vmis: Informer<Obj<HostVmi>>;
}

/** The metadata the monitor reads of any cached object. */
function leanMeta(obj: KubernetesObject): KubernetesObject['metadata'] {
  const m = obj.metadata ?? {};
  return {
    name: m.name,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    resourceVersion: m.resourceVersion,
    ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}),
  };
}

/** A Node as the monitor reads it: its node-id annotation, taints and conditions (not its images). */
export function leanNode(obj: KubernetesObject): KubernetesObject {
  const node = obj as Obj<GuestNode>;
  const nodeId = node.metadata?.annotations?.[NODE_ID_ANNOTATION];
  return {
    metadata: {
      ...leanMeta(obj),
      ...(nodeId ? { annotations: { [NODE_ID_ANNOTATION]: nodeId } } : {}),
    },
    spec: { ...(node.spec?.taints ? { taints: node.spec.taints } : {}) },
    status: {
      conditions: (node.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status })),
    },
  } as KubernetesObject;
}

/** A PV as the monitor reads it: its CSI driver and volume handle. */
export function leanPv(obj: KubernetesObject): KubernetesObject {
  const csi = (obj as Obj<GuestPv>).spec?.csi;
  return {
    metadata: leanMeta(obj),
    spec: csi ? { csi: { driver: csi.driver, volumeHandle: csi.volumeHandle } } : {},
  } as KubernetesObject;
}

/** A VMI as the monitor reads it: that it exists. */
export function leanVmi(obj: KubernetesObject): KubernetesObject {
  return { metadata: leanMeta(obj) };
}

/** The caches, started (each lists, then watches). */
export function startMonitorCaches(
  guest: KubeClientConfig,
  host: KubeClientConfig,
  hostNamespace: string,
  log: Logger,
): MonitorCaches {
  const caches: MonitorCaches = {
    nodes: new Informer<Obj<GuestNode>>({
      kubeConfig: guest,
      resource: { group: '', version: 'v1', plural: 'nodes' },
      transform: leanNode,
      logger: log,
    }),
    pvs: new Informer<Obj<GuestPv>>({
      kubeConfig: guest,
      resource: { group: '', version: 'v1', plural: 'persistentvolumes' },
      transform: leanPv,
      logger: log,
    }),
    vmis: new Informer<Obj<HostVmi>>({
      kubeConfig: host,
      resource: {
        group: 'kubevirt.io',
        version: 'v1',
        plural: 'virtualmachineinstances',
        namespace: hostNamespace,
      },
      transform: leanVmi,
      logger: log,
    }),
  };
  for (const informer of Object.values(caches) as Informer[]) void informer.start();
  return caches;
}

/** Whether every cache has listed. */
export function monitorCachesSynced(caches: MonitorCaches): boolean {
  return caches.nodes.hasSynced && caches.pvs.hasSynced && caches.vmis.hasSynced;
}

/** Stops every watch. */
export async function stopMonitorCaches(caches: MonitorCaches): Promise<void> {
  await Promise.all([caches.nodes.stop(), caches.pvs.stop(), caches.vmis.stop()]);
}
