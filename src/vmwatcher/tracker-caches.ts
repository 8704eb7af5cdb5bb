import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { Informer, keyOf, type Clock, type IndexFunc } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import { pvcKeysOfVm, pvcKeysOfVmi } from '../admission/index.js';
import { withoutManagedFields } from '../cluster/index.js';
import { leanPod, leanPv, leanPvc, leanTrackedVmi, leanVm } from './lean-objects.js';
import type {
  KubeVirt,
  PersistentVolume,
  Pod,
  TrackedPvc,
  TrackedVmi,
  VirtualMachine,
} from './tracker-objects.js';
import { VOLUME_EXPANSIONS, type VolumeExpansion } from './volume-expansion.js';
import { CREATED_BY_LABEL, KUBEVIRT_PODS_SELECTOR } from './volume-pods.js';

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

type Obj<T> = T & KubernetesObject;

export interface TrackerCaches {
  pvcs: Informer<Obj<TrackedPvc>>;
  pvs: Informer<Obj<PersistentVolume>>;
  vms: Informer<Obj<VirtualMachine>>;
  vmis: Informer<Obj<TrackedVmi>>;
  pods: Informer<Obj<Pod>>;
  kubeVirts: Informer<Obj<KubeVirt>>;
  expansions: Informer<Obj<VolumeExpansion>>;
}

export interface StartTrackerCachesOptions {
  kubeConfig: KubeConfig;
  logger?: Logger;
  /** The KubeVirt CR the tracker reads (Harvester: harvester-system/kubevirt). */
  kubeVirtNamespace: string;
  kubeVirtName: string;
  clock?: Clock;
  /** Longest wait between failed lists or watches (default 5 s). */
  backoffMaxMs?: number;
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

/**
 * Starts the tracker's informers: PVCs, PVs, VMs (indexed by PVC), VMIs (by PVC and uid),
 * virt-launcher and hotplug pods (label kubevirt.io; by creator, owner and uid), the KubeVirt CR
 * (by name, so RBAC may grant just it) and VolumeExpansions (by PVC). Each keeps only what the
 * tracker reads (lean-objects.ts). KubeVirt resources the cluster does not serve count as empty;
 * the VolumeExpansion CRD must be installed.
 */
export function startTrackerCaches(options: StartTrackerCachesOptions): StartedTrackerCaches {
  const names = new Map<Informer<KubernetesObject>, string>();
  const make = <T extends KubernetesObject>(
    group: string,
    version: string,
    plural: string,
    extra: {
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
      transform: (object: T) => T;
      indexers?: Record<string, IndexFunc<T>>;
      notServedAsEmpty?: boolean;
    },
  ): Informer<T> => {
    const name = `${plural}${group ? `.${group}` : ''}`;
    const informer = new Informer<T>({
      kubeConfig: options.kubeConfig,
      resource: {
        group,
        version,
        plural,
        ...(extra.namespace ? { namespace: extra.namespace } : {}),
      },
      ...(extra.labelSelector ? { labelSelector: extra.labelSelector } : {}),
      ...(extra.fieldSelector ? { fieldSelector: extra.fieldSelector } : {}),
      transform: extra.transform as unknown as (object: KubernetesObject) => KubernetesObject,
      backoffMaxMs: options.backoffMaxMs ?? 5_000,
      ...(extra.notServedAsEmpty ? { notServedAsEmpty: true } : {}),
      ...(options.logger ? { logger: options.logger.child({ informer: name }) } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    for (const [index, fn] of Object.entries(extra.indexers ?? {})) informer.addIndex(index, fn);
    names.set(informer as unknown as Informer<KubernetesObject>, name);
    return informer;
  };
  const caches: TrackerCaches = {
    pvcs: make<Obj<TrackedPvc>>('', 'v1', 'persistentvolumeclaims', { transform: keep(leanPvc) }),
    pvs: make<Obj<PersistentVolume>>('', 'v1', 'persistentvolumes', { transform: keep(leanPv) }),
    vms: make<Obj<VirtualMachine>>('kubevirt.io', 'v1', 'virtualmachines', {
      transform: keep(leanVm),
      indexers: { [VMS_BY_PVC]: (vm) => pvcKeysOfVm(vm) },
      notServedAsEmpty: true,
    }),
    vmis: make<Obj<TrackedVmi>>('kubevirt.io', 'v1', 'virtualmachineinstances', {
      transform: keep(leanTrackedVmi),
      indexers: {
        [VMIS_BY_PVC]: (vmi) => pvcKeysOfVmi(vmi),
        [VMIS_BY_UID]: (vmi) => uidKey(vmi.metadata?.namespace, vmi.metadata?.uid),
      },
      notServedAsEmpty: true,
    }),
    pods: make<Obj<Pod>>('', 'v1', 'pods', {
      labelSelector: KUBEVIRT_PODS_SELECTOR,
      transform: keep(leanPod),
      indexers: {
        [PODS_BY_CREATOR]: (pod) =>
          uidKey(pod.metadata?.namespace, pod.metadata?.labels?.[CREATED_BY_LABEL]),
        [PODS_BY_OWNER]: (pod) =>
          (pod.metadata?.ownerReferences ?? []).flatMap((owner) =>
            uidKey(pod.metadata?.namespace, owner.uid),
          ),
        [PODS_BY_UID]: (pod) => (pod.metadata?.uid ? [pod.metadata.uid] : []),
      },
    }),
    kubeVirts: make<Obj<KubeVirt>>('kubevirt.io', 'v1', 'kubevirts', {
      namespace: options.kubeVirtNamespace,
      fieldSelector: `metadata.name=${options.kubeVirtName}`,
      transform: withoutManagedFields,
      notServedAsEmpty: true,
    }),
    expansions: make<Obj<VolumeExpansion>>(
      VOLUME_EXPANSIONS.group,
      VOLUME_EXPANSIONS.version,
      VOLUME_EXPANSIONS.plural,
      {
        transform: withoutManagedFields,
        indexers: {
          [EXPANSIONS_BY_PVC]: (expansion) =>
            expansion.spec?.pvcName
              ? [keyOf(expansion.metadata?.namespace, expansion.spec.pvcName)]
              : [],
        },
      },
    ),
  };
  const all = Object.values(caches) as Array<Informer<KubernetesObject>>;
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
