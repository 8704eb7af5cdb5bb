import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../kube/index.js';
import { Informer, keyOf, type Clock, type IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import {
  leanClaimEvent,
  leanLonghornVolume,
  leanNamespace,
  pvcKeysOfVm,
  pvcKeysOfVmi,
  leanPod,
  leanPv,
  leanPvc,
  leanTrackedVmi,
  leanVm,
  type ClaimEvent,
  type KubeVirt,
  type LonghornVolume,
  type Namespace,
  type PersistentVolume,
  type Pod,
  type PersistentVolumeClaim,
  type VirtualMachineInstance,
  type VirtualMachine,
} from '../model/index.js';
import { withoutManagedFields } from '../host-cache/index.js';
import { VOLUME_EXPANSIONS, type VolumeExpansion } from './volume-expansion.js';
import { KUBEVIRT_PODS_SELECTOR } from './volume-pods.js';
import { TRACKER_CONTROLLER } from './tracker-controller.js';
import { CREATED_BY_LABEL } from '../model/index.js';

/** "namespace/pvc" -> VMs using it (template volumes, volumeClaimTemplates annotation). */
export const VMS_BY_PVC = 'vms-by-pvc';
/** "namespace/pvc" -> VMIs using it. */
export const VMIS_BY_PVC = 'vmis-by-pvc';
/** "namespace/vmi-uid" -> virt-launcher pods (label kubevirt.io/created-by). */
export const PODS_BY_CREATOR = 'pods-by-creator';
/** "namespace/owner-uid" -> pods with that controller (hotplug pods by launcher). */
export const PODS_BY_OWNER = 'pods-by-owner';
/** Pod uid -> the pod. */
export const PODS_BY_UID = 'pods-by-uid';
/** "namespace/vmi-uid" -> the VMI. */
export const VMIS_BY_UID = 'vmis-by-uid';
/** "namespace/pvc" -> the VolumeExpansions following it (spec.pvcName). */
export const EXPANSIONS_BY_PVC = 'expansions-by-pvc';
/** "namespace/pvc" -> the Events about it. */
export const EVENTS_BY_PVC = 'events-by-pvc';
/** Where Longhorn keeps its volumes (Harvester's). */
export const LONGHORN_NAMESPACE = 'longhorn-system';

type Obj<T> = T & KubernetesObject;

export interface TrackerCaches {
  pvcs: Informer<Obj<PersistentVolumeClaim>>;
  pvs: Informer<Obj<PersistentVolume>>;
  vms: Informer<Obj<VirtualMachine>>;
  vmis: Informer<Obj<VirtualMachineInstance>>;
  pods: Informer<Obj<Pod>>;
  kubeVirts: Informer<Obj<KubeVirt>>;
  expansions: Informer<Obj<VolumeExpansion>>;
  /** Longhorn's volumes (empty where Longhorn is not served). */
  longhornVolumes: Informer<Obj<LonghornVolume>>;
  /** core/v1 Events about PVCs (external-resizer's). */
  claimEvents: Informer<Obj<ClaimEvent>>;
  /** Namespaces (their guest-growth opt-in annotation), only with guest filesystem growth on. */
  namespaces?: Informer<Obj<Namespace>>;
}

export interface StartTrackerCachesOptions {
  kubeConfig: KubeClientConfig;
  logger?: Logger;
  /** The KubeVirt CR the tracker reads (Harvester: harvester-system/kubevirt). */
  kubeVirtNamespace: string;
  kubeVirtName: string;
  clock?: Clock;
  /** Longest wait between failed lists or watches (default 5 s). */
  backoffMaxMs?: number;
  /** Also cache Namespaces, whose annotation opts their VMs in to guest filesystem growth. */
  namespaces?: boolean;
}

export interface StartedTrackerCaches {
  caches: TrackerCaches;
  /** Every cache follows the API server (listed, and no list or watch failed since). */
  ready(): boolean;
  /** The caches that do not follow the API server now, by name. */
  unsynced(): string[];
  /** Resolves once every cache has listed once. */
  synced: Promise<void>;
  stop(): Promise<void>;
}

/** A transform written for the plain object type, for an informer of it. */
const keep = <T>(fn: (object: T) => T) => fn as unknown as (object: Obj<T>) => Obj<T>;

const uidKey = (namespace: string | undefined, uid: string | undefined): string[] =>
  uid ? [keyOf(namespace, uid)] : [];

interface InformerSpec<T> {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  transform: (object: T) => T;
  indexers?: Record<string, IndexFunc<T>>;
  notServedAsEmpty?: boolean;
}

/** The name an informer goes by in logs and /readyz: plural.group. */
const informerName = (spec: { group: string; plural: string }): string =>
  `${spec.plural}${spec.group ? `.${spec.group}` : ''}`;

/** One informer of the tracker, with its indexes, not started. */
function trackerInformer<T extends KubernetesObject>(
  options: StartTrackerCachesOptions,
  spec: InformerSpec<T>,
): Informer<T> {
  const informer = new Informer<T>({
    kubeConfig: options.kubeConfig,
    resource: {
      group: spec.group,
      version: spec.version,
      plural: spec.plural,
      ...(spec.namespace ? { namespace: spec.namespace } : {}),
    },
    ...(spec.labelSelector ? { labelSelector: spec.labelSelector } : {}),
    ...(spec.fieldSelector ? { fieldSelector: spec.fieldSelector } : {}),
    transform: spec.transform as unknown as (object: KubernetesObject) => KubernetesObject,
    backoffMaxMs: options.backoffMaxMs ?? 5_000,
    ...(spec.notServedAsEmpty ? { notServedAsEmpty: true } : {}),
    ...(options.logger ? { logger: options.logger.child({ informer: informerName(spec) }) } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  for (const [index, fn] of Object.entries(spec.indexers ?? {})) informer.addIndex(index, fn);
  return informer;
}

const KUBEVIRT = { group: 'kubevirt.io', version: 'v1' };
const CORE = { group: '', version: 'v1' };

/** What each cache lists and watches, keeps and indexes. */
function trackerInformerSpecs(options: StartTrackerCachesOptions) {
  return {
    pvcs: {
      ...CORE,
      plural: 'persistentvolumeclaims',
      transform: keep(leanPvc),
    } satisfies InformerSpec<Obj<PersistentVolumeClaim>>,
    pvs: {
      ...CORE,
      plural: 'persistentvolumes',
      transform: keep(leanPv),
    } satisfies InformerSpec<Obj<PersistentVolume>>,
    vms: {
      ...KUBEVIRT,
      plural: 'virtualmachines',
      transform: keep(leanVm),
      indexers: { [VMS_BY_PVC]: (vm: Obj<VirtualMachine>) => pvcKeysOfVm(vm) },
      notServedAsEmpty: true,
    } satisfies InformerSpec<Obj<VirtualMachine>>,
    vmis: {
      ...KUBEVIRT,
      plural: 'virtualmachineinstances',
      transform: keep(leanTrackedVmi),
      indexers: {
        [VMIS_BY_PVC]: (vmi: Obj<VirtualMachineInstance>) => pvcKeysOfVmi(vmi),
        [VMIS_BY_UID]: (vmi: Obj<VirtualMachineInstance>) =>
          uidKey(vmi.metadata?.namespace, vmi.metadata?.uid),
      },
      notServedAsEmpty: true,
    } satisfies InformerSpec<Obj<VirtualMachineInstance>>,
    pods: {
      ...CORE,
      plural: 'pods',
      labelSelector: KUBEVIRT_PODS_SELECTOR,
      transform: keep(leanPod),
      indexers: {
        [PODS_BY_CREATOR]: (pod: Obj<Pod>) =>
          uidKey(pod.metadata?.namespace, pod.metadata?.labels?.[CREATED_BY_LABEL]),
        [PODS_BY_OWNER]: (pod: Obj<Pod>) =>
          (pod.metadata?.ownerReferences ?? []).flatMap((owner) =>
            uidKey(pod.metadata?.namespace, owner.uid),
          ),
        [PODS_BY_UID]: (pod: Obj<Pod>) => (pod.metadata?.uid ? [pod.metadata.uid] : []),
      },
    } satisfies InformerSpec<Obj<Pod>>,
    kubeVirts: {
      ...KUBEVIRT,
      plural: 'kubevirts',
      namespace: options.kubeVirtNamespace,
      fieldSelector: `metadata.name=${options.kubeVirtName}`,
      transform: withoutManagedFields<Obj<KubeVirt>>,
      notServedAsEmpty: true,
    } satisfies InformerSpec<Obj<KubeVirt>>,
    expansions: {
      ...VOLUME_EXPANSIONS,
      transform: withoutManagedFields<Obj<VolumeExpansion>>,
      indexers: {
        [EXPANSIONS_BY_PVC]: (expansion: Obj<VolumeExpansion>) =>
          expansion.spec?.pvcName
            ? [keyOf(expansion.metadata?.namespace, expansion.spec.pvcName)]
            : [],
      },
    } satisfies InformerSpec<Obj<VolumeExpansion>>,
    longhornVolumes: {
      group: 'longhorn.io',
      version: 'v1beta2',
      plural: 'volumes',
      namespace: LONGHORN_NAMESPACE,
      transform: keep(leanLonghornVolume),
      notServedAsEmpty: true,
    } satisfies InformerSpec<Obj<LonghornVolume>>,
    claimEvents: {
      ...CORE,
      plural: 'events',
      // The tracker's own Events say nothing the tracker reads (pkg/registry/core/event/strategy.go
      // selects reportingComponent): not sent, they neither queue a PVC nor take memory.
      fieldSelector: `involvedObject.kind=PersistentVolumeClaim,reportingComponent!=${TRACKER_CONTROLLER}`,
      transform: keep(leanClaimEvent),
      indexers: {
        [EVENTS_BY_PVC]: (event: Obj<ClaimEvent>) =>
          event.involvedObject?.name
            ? [keyOf(event.involvedObject.namespace, event.involvedObject.name)]
            : [],
      },
    } satisfies InformerSpec<Obj<ClaimEvent>>,
    namespaces: {
      ...CORE,
      plural: 'namespaces',
      transform: keep(leanNamespace),
    } satisfies InformerSpec<Obj<Namespace>>,
  };
}

/**
 * Starts the tracker's informers: PVCs, PVs, VMs (indexed by PVC), VMIs (by PVC and uid),
 * virt-launcher and hotplug pods (label kubevirt.io; by creator, owner and uid), the KubeVirt CR
 * (by name, so RBAC may grant just it), VolumeExpansions (by PVC), Longhorn's volumes and the
 * Events about PVCs (by PVC), and with `namespaces` the Namespaces (their guest-growth
 * annotation). Each keeps only what the tracker reads (lean-objects.ts). KubeVirt
 * and Longhorn resources the cluster does not serve count as empty;
 * the VolumeExpansion CRD must be installed.
 */
export function startTrackerCaches(options: StartTrackerCachesOptions): StartedTrackerCaches {
  const specs = trackerInformerSpecs(options);
  const caches: TrackerCaches = {
    pvcs: trackerInformer(options, specs.pvcs),
    pvs: trackerInformer(options, specs.pvs),
    vms: trackerInformer(options, specs.vms),
    vmis: trackerInformer(options, specs.vmis),
    pods: trackerInformer(options, specs.pods),
    kubeVirts: trackerInformer(options, specs.kubeVirts),
    expansions: trackerInformer(options, specs.expansions),
    longhornVolumes: trackerInformer(options, specs.longhornVolumes),
    claimEvents: trackerInformer(options, specs.claimEvents),
    ...(options.namespaces ? { namespaces: trackerInformer(options, specs.namespaces) } : {}),
  };
  const names = new Map<Informer<KubernetesObject>, string>(
    Object.entries(caches).map(([key, informer]) => [
      informer as Informer<KubernetesObject>,
      informerName(specs[key as keyof TrackerCaches]),
    ]),
  );
  const all = [...names.keys()];
  for (const informer of all) void informer.start().catch(() => undefined);
  const synced = Promise.all(all.map((informer) => informer.synced)).then(() => undefined);
  // Rejected only when stopped before the first list: those who wait say so themselves.
  synced.catch(() => undefined);
  return {
    caches,
    ready: () => all.every((informer) => informer.inSync),
    unsynced: () =>
      all.filter((informer) => !informer.inSync).map((informer) => names.get(informer)!),
    synced,
    stop: async () => {
      await Promise.all(all.map((informer) => informer.stop()));
    },
  };
}
