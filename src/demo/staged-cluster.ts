/**
 * Writes scenarios (ClusterState of real-shaped objects) into a real API server the way the
 * real components would: objects first, then their status through the /status subresource
 * (as KubeVirt's virt-controller/virt-operator and Longhorn's manager do). Used by `voe demo`
 * on its own local control plane and by the integration tests; never against a user's cluster.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  StorageV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import { isAlreadyExists } from '../kube/index.js';
import type { PersistentVolumeClaim } from '../model/index.js';
import type { ClusterState } from './cluster-state.js';

type Json = Record<string, unknown>;

/** The object as a user would send it on create: no uid, resourceVersion or status. */
function forCreate(object: unknown): Json {
  const copy = structuredClone(object) as Json;
  const metadata = { ...(copy['metadata'] as Json) };
  delete metadata['uid'];
  delete metadata['resourceVersion'];
  copy['metadata'] = metadata;
  delete copy['status'];
  return copy;
}

function statusOf(object: unknown): Json | undefined {
  const status = (object as { status?: Json }).status;
  return status && Object.keys(status).length > 0 ? status : undefined;
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function resourceVersionOf(object: unknown): string | undefined {
  return (object as { metadata?: { resourceVersion?: string } } | undefined)?.metadata
    ?.resourceVersion;
}

export interface CustomKind {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const KINDS = {
  vms: {
    group: 'kubevirt.io',
    version: 'v1',
    plural: 'virtualmachines',
    kind: 'VirtualMachine',
    namespaced: true,
  },
  vmis: {
    group: 'kubevirt.io',
    version: 'v1',
    plural: 'virtualmachineinstances',
    kind: 'VirtualMachineInstance',
    namespaced: true,
  },
  kubeVirts: {
    group: 'kubevirt.io',
    version: 'v1',
    plural: 'kubevirts',
    kind: 'KubeVirt',
    namespaced: true,
  },
  settings: {
    group: 'harvesterhci.io',
    version: 'v1beta1',
    plural: 'settings',
    kind: 'Setting',
    namespaced: false,
  },
  longhornVolumes: {
    group: 'longhorn.io',
    version: 'v1beta2',
    plural: 'volumes',
    kind: 'Volume',
    namespaced: true,
  },
  longhornEngines: {
    group: 'longhorn.io',
    version: 'v1beta2',
    plural: 'engines',
    kind: 'Engine',
    namespaced: true,
  },
  longhornSettings: {
    group: 'longhorn.io',
    version: 'v1beta2',
    plural: 'settings',
    kind: 'Setting',
    namespaced: true,
  },
} as const satisfies Record<string, CustomKind>;

export class StagedCluster {
  readonly core: CoreV1Api;
  readonly storage: StorageV1Api;
  readonly custom: CustomObjectsApi;

  constructor(readonly kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.storage = kubeConfig.makeApiClient(StorageV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async ensureNamespace(name: string): Promise<void> {
    try {
      await this.core.createNamespace({ body: { metadata: { name } } });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /** Creates every object of the state (and its status); namespaces are created as needed. */
  async apply(state: ClusterState): Promise<void> {
    const namespaces = new Set<string>();
    for (const list of Object.values(state) as Array<
      Array<{ metadata?: { namespace?: string } }> | undefined
    >) {
      for (const object of list ?? [])
        if (object.metadata?.namespace) namespaces.add(object.metadata.namespace);
    }
    for (const namespace of namespaces) await this.ensureNamespace(namespace);
    for (const storageClass of state.storageClasses ?? []) {
      await this.storage.createStorageClass({
        body: {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          ...forCreate(storageClass),
        } as never,
      });
    }
    for (const pvc of state.pvcs ?? []) {
      const namespace = pvc.metadata?.namespace ?? 'default';
      await this.core.createNamespacedPersistentVolumeClaim({
        namespace,
        body: forCreate(pvc) as never,
      });
    }
    for (const key of Object.keys(KINDS) as Array<keyof typeof KINDS>) {
      for (const object of (state[key] ?? []) as unknown[])
        await this.createCustom(KINDS[key], object);
    }
  }

  async createCustom(kind: CustomKind, object: unknown): Promise<void> {
    const body: Json = {
      apiVersion: `${kind.group}/${kind.version}`,
      kind: kind.kind,
      ...forCreate(object),
    };
    const metadata = body['metadata'] as { name: string; namespace?: string };
    const { group, version, plural } = kind;
    if (kind.namespaced) {
      const namespace = metadata.namespace ?? 'default';
      await this.custom.createNamespacedCustomObject({ group, version, plural, namespace, body });
      const status = statusOf(object);
      if (status)
        await this.custom.patchNamespacedCustomObjectStatus(
          { group, version, plural, namespace, name: metadata.name, body: { status } },
          MERGE,
        );
    } else {
      await this.custom.createClusterCustomObject({ group, version, plural, body });
      const status = statusOf(object);
      if (status)
        await this.custom.patchClusterCustomObjectStatus(
          { group, version, plural, name: metadata.name, body: { status } },
          MERGE,
        );
    }
  }

  /**
   * The PV binder's part for each claim: a CSI PersistentVolume of the claim's capacity bound
   * to it, and the claim's status Bound with that capacity (as kube-controller-manager writes it).
   * The PV is named by the claim's spec.volumeName; its CSI volumeHandle is that name too (as a
   * provisioner names it) unless `volumeHandles` maps the PV name to another (a statically
   * provisioned PV made for an existing volume).
   */
  async bindClaims(
    claims: PersistentVolumeClaim[],
    volumeHandles: Record<string, string> = {},
  ): Promise<void> {
    for (const claim of claims) {
      const name = claim.metadata?.name ?? '';
      const namespace = claim.metadata?.namespace ?? 'default';
      const driver =
        claim.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'] ?? '';
      const capacity = String(claim.spec?.resources?.requests?.['storage'] ?? '');
      const accessModes = claim.spec?.accessModes ?? ['ReadWriteOnce'];
      const volumeName = claim.spec?.volumeName ?? `pvc-${name}`;
      await this.core.createPersistentVolume({
        body: {
          metadata: {
            name: volumeName,
            annotations: { 'pv.kubernetes.io/provisioned-by': driver },
          },
          spec: {
            capacity: { storage: capacity },
            accessModes,
            persistentVolumeReclaimPolicy: 'Delete',
            storageClassName: claim.spec?.storageClassName ?? '',
            volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
            claimRef: { kind: 'PersistentVolumeClaim', namespace, name, apiVersion: 'v1' },
            csi: { driver, volumeHandle: volumeHandles[volumeName] ?? volumeName, fsType: 'ext4' },
          },
        },
      });
      await this.core.patchNamespacedPersistentVolumeClaimStatus(
        {
          namespace,
          name,
          body: { status: { phase: 'Bound', accessModes, capacity: { storage: capacity } } },
        },
        MERGE,
      );
    }
  }

  /** Raises a PVC's storage request as a user would (a merge patch through the API server and its webhooks). */
  async resizeClaim(namespace: string, name: string, storage: string): Promise<void> {
    await this.core.patchNamespacedPersistentVolumeClaim(
      { namespace, name, body: { spec: { resources: { requests: { storage } } } } },
      MERGE,
    );
  }

  /** A JSON merge patch on a custom object's main resource; resolves with the new resourceVersion. */
  async patchCustom(
    kind: CustomKind,
    name: string,
    patch: Json,
    namespace?: string,
  ): Promise<string | undefined> {
    const { group, version, plural } = kind;
    const result: unknown = kind.namespaced
      ? await this.custom.patchNamespacedCustomObject(
          { group, version, plural, namespace: namespace ?? 'default', name, body: patch },
          MERGE,
        )
      : await this.custom.patchClusterCustomObject(
          { group, version, plural, name, body: patch },
          MERGE,
        );
    return resourceVersionOf(result);
  }

  /** A JSON merge patch on a custom object's status (as the owning controller writes it); resolves with the new resourceVersion. */
  async patchCustomStatus(
    kind: CustomKind,
    name: string,
    status: Json,
    namespace?: string,
  ): Promise<string | undefined> {
    const { group, version, plural } = kind;
    const result: unknown = kind.namespaced
      ? await this.custom.patchNamespacedCustomObjectStatus(
          { group, version, plural, namespace: namespace ?? 'default', name, body: { status } },
          MERGE,
        )
      : await this.custom.patchClusterCustomObjectStatus(
          { group, version, plural, name, body: { status } },
          MERGE,
        );
    return resourceVersionOf(result);
  }
}
