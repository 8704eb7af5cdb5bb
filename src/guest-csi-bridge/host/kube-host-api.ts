import type { KubeClientConfig } from '../../kube/index.js';
import {
  isAlreadyExists,
  isNotFound,
  requestJson,
  resourcePath,
  type KubeRequest,
  type NamedResourceRef,
  type ResourceRef,
} from '../../kube/index.js';
import type { HarvesterSetting } from '../../settings/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi, WaitOptions } from './host-api.js';
import { hostFailure, hostMessage, isResizeRefusal } from './host-failure.js';
import { hostNamespaceOf } from './host-namespace.js';
import type {
  HostNetworkFilesystem,
  HostPod,
  HostPvc,
  HostRemoteBackup,
  HostRemoteRestore,
  HostStorageClass,
  HostVm,
  HostVmi,
  HostVolumeAttachment,
  HostVolumeSnapshot,
  JsonPatchOperation,
} from './host-objects.js';
import { waitForObject } from './wait-for-object.js';

const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const SETTINGS = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' };
const STORAGE_CLASSES = { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses' };
const VOLUME_ATTACHMENTS = { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments' };
const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VOLUME_SNAPSHOTS = {
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  plural: 'volumesnapshots',
};
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const REMOTE_BACKUPS = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  plural: 'volumeremotebackups',
};
const REMOTE_RESTORES = { ...REMOTE_BACKUPS, plural: 'volumeremoterestores' };
const VM_SUBRESOURCES = {
  group: 'subresources.kubevirt.io',
  version: 'v1',
  plural: 'virtualmachines',
};
const VMI_SUBRESOURCES = { ...VM_SUBRESOURCES, plural: 'virtualmachineinstances' };
/** Harvester's NetworkFilesystems, all in harvester-system (harvester/networkfs-manager). */
const NETWORK_FILESYSTEMS = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  plural: 'networkfilesystems',
  namespace: 'harvester-system',
};

/** Each host request fails when the API server has not answered within this long. */
const REQUEST_TIMEOUT_MS = 20_000;

export interface KubeHostApiOptions {
  /** The host namespace; the kubeconfig context's (else `default`) unless told. */
  namespace?: string;
  /** Ends every request and watch of this HostApi when it aborts (a call's cancellation). */
  signal?: AbortSignal;
}

/** The production HostApi: the host's API server through `kubeConfig` (src/kube's requests and watches). */
export function createKubeHostApi(
  kubeConfig: KubeClientConfig,
  options: KubeHostApiOptions = {},
): HostApi {
  const host = new HostRequests(
    kubeConfig,
    options.namespace ?? hostNamespaceOf(kubeConfig),
    options.signal,
  );
  const { namespace } = host;
  const api: HostApi = {
    namespace,
    withSignal: (signal) => ({
      ...createKubeHostApi(kubeConfig, {
        namespace,
        signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal,
      }),
      base: api.base ?? api,
    }),
    probe: (signal) => probe(kubeConfig, signal),
    getPvc: (name) => host.get<HostPvc>(host.named(PVCS, name), host.where('PVC', name)),
    createPvc: async (body) => {
      const result = await createOrRead<HostPvc>(host, PVCS, 'PVC', {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        ...body,
      });
      return result.created ? { created: true, pvc: result.object } : result;
    },
    deletePvc: (name) => deleteNamed(host, PVCS, 'PVC', name),
    setPvcRequest: (name, storage, resourceVersion) =>
      setPvcRequest(host, name, storage, resourceVersion),
    waitForPvc: (name, done, waitOptions) =>
      host.wait<HostPvc>(host.named(PVCS, name), host.where('PVC', name), done, waitOptions),
    getVolumeSnapshot: (name) =>
      host.get<HostVolumeSnapshot>(
        host.named(VOLUME_SNAPSHOTS, name),
        host.where('VolumeSnapshot', name),
      ),
    createVolumeSnapshot: async (body) => {
      const result = await createOrRead<HostVolumeSnapshot>(
        host,
        VOLUME_SNAPSHOTS,
        'VolumeSnapshot',
        { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', ...body },
      );
      return result.created ? { created: true, snapshot: result.object } : result;
    },
    deleteVolumeSnapshot: (name) => deleteNamed(host, VOLUME_SNAPSHOTS, 'VolumeSnapshot', name),
    listVolumeSnapshots: (label) =>
      host.list<HostVolumeSnapshot>(
        { ...VOLUME_SNAPSHOTS, namespace },
        `VolumeSnapshots in ${namespace}`,
        false,
        label,
      ),
    getRemoteBackup: (name) =>
      host.get<HostRemoteBackup>(
        host.named(REMOTE_BACKUPS, name),
        host.where('VolumeRemoteBackup', name),
      ),
    createRemoteBackup: async (body) => {
      const result = await createOrRead<HostRemoteBackup>(
        host,
        REMOTE_BACKUPS,
        'VolumeRemoteBackup',
        { apiVersion: 'harvesterhci.io/v1beta1', kind: 'VolumeRemoteBackup', ...body },
      );
      return result.created ? { created: true, backup: result.object } : result;
    },
    deleteRemoteBackup: (name) => deleteNamed(host, REMOTE_BACKUPS, 'VolumeRemoteBackup', name),
    listRemoteBackups: (label) =>
      host.list<HostRemoteBackup>(
        { ...REMOTE_BACKUPS, namespace },
        `VolumeRemoteBackups in ${namespace}`,
        false,
        label,
        true,
      ),
    getRemoteRestore: (name) =>
      host.get<HostRemoteRestore>(
        host.named(REMOTE_RESTORES, name),
        host.where('VolumeRemoteRestore', name),
      ),
    createRemoteRestore: async (body) => {
      const result = await createOrRead<HostRemoteRestore>(
        host,
        REMOTE_RESTORES,
        'VolumeRemoteRestore',
        { apiVersion: 'harvesterhci.io/v1beta1', kind: 'VolumeRemoteRestore', ...body },
      );
      return result.created ? { created: true, restore: result.object } : result;
    },
    deleteRemoteRestore: (name) => deleteNamed(host, REMOTE_RESTORES, 'VolumeRemoteRestore', name),
    podsUsingPvc: (name) => podsUsingPvc(host, name),
    getSetting: (name) => host.get<HarvesterSetting>({ ...SETTINGS, name }, `Setting ${name}`),
    getStorageClass: (name) =>
      host.get<HostStorageClass>({ ...STORAGE_CLASSES, name }, `StorageClass ${name}`),
    listVolumeAttachments: () =>
      host.list<HostVolumeAttachment>(VOLUME_ATTACHMENTS, 'VolumeAttachments'),
    getVm: (name) => host.get<HostVm>(host.named(VMS, name), host.where('VirtualMachine', name)),
    listVms: () => host.list<HostVm>({ ...VMS, namespace }, `VirtualMachines in ${namespace}`),
    getVmi: (name) =>
      host.get<HostVmi>(host.named(VMIS, name), host.where('VirtualMachineInstance', name)),
    listVmis: () =>
      host.list<HostVmi>({ ...VMIS, namespace }, `VirtualMachineInstances in ${namespace}`),
    patchVm: (name, operations) => patchVm(host, name, operations),
    addVolumeLegacy: (vm, body) => host.putVmSubresource(vm, 'addvolume', body),
    removeVolumeLegacy: (vm, body) => host.putVmSubresource(vm, 'removevolume', body),
    removeVolumeFromVmi: (vmi, body) => host.putVmiSubresource(vmi, 'removevolume', body),
    waitForVmi: (name, done, waitOptions) =>
      host.wait<HostVmi>(
        host.named(VMIS, name),
        host.where('VirtualMachineInstance', name),
        done,
        waitOptions,
      ),
    ...networkFilesystemsOf(host),
  };
  return api;
}

type NetworkFilesystemApi = Pick<
  HostApi,
  | 'networkFilesystemsServed'
  | 'getNetworkFilesystem'
  | 'createNetworkFilesystem'
  | 'patchNetworkFilesystem'
  | 'deleteNetworkFilesystem'
  | 'waitForNetworkFilesystem'
>;

/** The NetworkFilesystems of harvester-system, through the host's requests. */
function networkFilesystemsOf(host: HostRequests): NetworkFilesystemApi {
  const named = (name: string) => ({ ...NETWORK_FILESYSTEMS, name });
  const where = (name: string) => `NetworkFilesystem ${NETWORK_FILESYSTEMS.namespace}/${name}`;
  return {
    networkFilesystemsServed: async () => {
      try {
        await host.send({
          method: 'GET',
          path: resourcePath(NETWORK_FILESYSTEMS),
          query: { limit: '1' },
        });
        return true;
      } catch (error) {
        const code = (error as { code?: number }).code;
        if (isNotFound(error) || code === 403) return false;
        throw hostFailure(error, 'listing NetworkFilesystems in harvester-system');
      }
    },
    getNetworkFilesystem: (name) => host.get<HostNetworkFilesystem>(named(name), where(name)),
    createNetworkFilesystem: async (body) => {
      const name = body.metadata?.name ?? '';
      try {
        const networkFilesystem = await host.send<HostNetworkFilesystem>({
          method: 'POST',
          path: resourcePath(NETWORK_FILESYSTEMS),
          body: { apiVersion: 'harvesterhci.io/v1beta1', kind: 'NetworkFilesystem', ...body },
        });
        return { created: true, networkFilesystem };
      } catch (error) {
        if (!isAlreadyExists(error)) throw hostFailure(error, `creating ${where(name)}`);
      }
      const existing = await host.get<HostNetworkFilesystem>(named(name), where(name));
      if (!existing)
        throw new CsiError(
          'CSI_HOST_UNAVAILABLE',
          `creating ${where(name)}: it existed, then was deleted before it could be read; retry`,
        );
      return { created: false, existing };
    },
    patchNetworkFilesystem: (name, patch) =>
      host.send<HostNetworkFilesystem>({
        method: 'PATCH',
        path: resourcePath(named(name)),
        contentType: 'application/merge-patch+json',
        body: patch,
      }),
    deleteNetworkFilesystem: async (name) => {
      try {
        await host.send({ method: 'DELETE', path: resourcePath(named(name)) });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw hostFailure(error, `deleting ${where(name)}`);
      }
    },
    waitForNetworkFilesystem: (name, done, waitOptions) =>
      host.wait<HostNetworkFilesystem>(named(name), where(name), done, waitOptions),
  };
}

/**
 * The host's API server in one namespace: requests with the host's time limit, and reads,
 * lists and watches whose failures become the CSI errors of host-failure.ts.
 */
class HostRequests {
  constructor(
    readonly kubeConfig: KubeClientConfig,
    readonly namespace: string,
    /** The call's cancellation: every request and watch ends when it aborts. */
    readonly signal: AbortSignal | undefined = undefined,
  ) {}

  /** `name` of `resource` in the host namespace. */
  named(resource: ResourceRef, name: string): NamedResourceRef {
    return { ...resource, namespace: this.namespace, name };
  }

  /** How messages name an object of the host namespace: `<kind> <namespace>/<name>`. */
  where(kind: string, name: string): string {
    return `${kind} ${this.namespace}/${name}`;
  }

  /** One request, failing when the API server has not answered within REQUEST_TIMEOUT_MS or the call's signal aborts. */
  send<T = unknown>(request: Omit<KubeRequest, 'timeoutMs' | 'signal'>): Promise<T> {
    return requestJson<T>(this.kubeConfig, {
      ...request,
      timeoutMs: REQUEST_TIMEOUT_MS,
      ...(this.signal ? { signal: this.signal } : {}),
    });
  }

  /** The object, or undefined when there is none. */
  async get<T>(ref: NamedResourceRef, what: string): Promise<T | undefined> {
    try {
      return await this.send<T>({ method: 'GET', path: resourcePath(ref) });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw hostFailure(error, `reading ${what}`);
    }
  }

  async list<T>(
    ref: ResourceRef,
    what: string,
    fromCache = false,
    labelSelector?: string,
    /** A 404 (the host does not serve the kind: its CRD is not installed) lists nothing. */
    unservedIsEmpty = false,
  ): Promise<T[]> {
    try {
      const query: Record<string, string> = {
        // resourceVersion=0: the API server's watch cache answers at once. A consistent list
        // first waits for that cache to catch up with etcd (tens of ms for a quiet resource).
        ...(fromCache ? { resourceVersion: '0' } : {}),
        ...(labelSelector ? { labelSelector } : {}),
      };
      const body = await this.send<{ items?: T[] }>({
        method: 'GET',
        path: resourcePath(ref),
        ...(Object.keys(query).length > 0 ? { query } : {}),
      });
      return body.items ?? [];
    } catch (error) {
      if (unservedIsEmpty && isNotFound(error)) return [];
      throw hostFailure(error, `listing ${what}`);
    }
  }

  /** waitForObject; an abort by the caller's signal is passed on as it is. */
  async wait<T extends { metadata?: { resourceVersion?: string } }>(
    ref: NamedResourceRef,
    what: string,
    done: (object: T | undefined) => boolean,
    options: WaitOptions<T>,
  ): Promise<T | undefined> {
    const signal = this.signal ? AbortSignal.any([options.signal, this.signal]) : options.signal;
    try {
      return await waitForObject<T>(this.kubeConfig, ref, done, { ...options, signal });
    } catch (error) {
      if (signal.aborted && error === signal.reason) throw error;
      throw hostFailure(error, `watching ${what}`);
    }
  }

  /** PUT of a VirtualMachineInstance subresource of KubeVirt's (removevolume). */
  async putVmiSubresource(vmi: string, subresource: string, body: unknown): Promise<void> {
    try {
      await this.send({
        method: 'PUT',
        path: resourcePath(this.named(VMI_SUBRESOURCES, vmi), subresource),
        body,
      });
    } catch (error) {
      throw hostFailure(error, `${subresource} on VirtualMachineInstance ${this.namespace}/${vmi}`);
    }
  }

  /** PUT of a VirtualMachine subresource of KubeVirt's (addvolume, removevolume). */
  async putVmSubresource(vm: string, subresource: string, body: unknown): Promise<void> {
    try {
      await this.send({
        method: 'PUT',
        path: resourcePath(this.named(VM_SUBRESOURCES, vm), subresource),
        body,
      });
    } catch (error) {
      throw hostFailure(error, `${subresource} on VirtualMachine ${this.namespace}/${vm}`);
    }
  }
}

/** GET /version, within 5 s: whether the host's API server answers. */
async function probe(kubeConfig: KubeClientConfig, signal?: AbortSignal): Promise<void> {
  await requestJson(kubeConfig, {
    method: 'GET',
    path: '/version',
    timeoutMs: 5_000,
    ...(signal ? { signal } : {}),
  });
}

/** Creates the object in the host namespace, or reads the one of that name that exists. */
async function createOrRead<T extends { metadata?: { name?: string } }>(
  host: HostRequests,
  resource: ResourceRef,
  kind: string,
  body: T,
): Promise<{ created: true; object: T } | { created: false; existing: T }> {
  const name = body.metadata?.name ?? '';
  const where = host.where(kind, name);
  try {
    const object = await host.send<T>({
      method: 'POST',
      path: resourcePath({ ...resource, namespace: host.namespace }),
      body,
    });
    return { created: true, object };
  } catch (error) {
    if (!isAlreadyExists(error)) throw hostFailure(error, `creating ${where}`);
  }
  const existing = await host.get<T>(host.named(resource, name), where);
  // Deleted between the two calls: the next retry creates it.
  if (!existing)
    throw new CsiError(
      'CSI_HOST_UNAVAILABLE',
      `creating ${where}: it existed, then was deleted before it could be read; retry`,
    );
  return { created: false, existing };
}

/** Deletes the object of the host namespace; false when there was none. */
async function deleteNamed(
  host: HostRequests,
  resource: ResourceRef,
  kind: string,
  name: string,
): Promise<boolean> {
  try {
    await host.send({ method: 'DELETE', path: resourcePath(host.named(resource, name)) });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw hostFailure(error, `deleting ${host.where(kind, name)}`);
  }
}

/** Sets the PVC's storage request by a merge patch that carries `resourceVersion`. */
async function setPvcRequest(
  host: HostRequests,
  name: string,
  storage: string,
  resourceVersion: string,
): Promise<HostPvc> {
  try {
    return await host.send<HostPvc>({
      method: 'PATCH',
      path: resourcePath(host.named(PVCS, name)),
      contentType: 'application/merge-patch+json',
      body: {
        metadata: { resourceVersion },
        spec: { resources: { requests: { storage } } },
      },
    });
  } catch (error) {
    throw growthFailure(error, host.where('PVC', name), storage);
  }
}

/**
 * The error a failed growth of `pvc` to `storage` ends with: the host's refusal as
 * CSI_EXPANSION_REFUSED; a 409 Conflict as the API error itself (the caller reads the PVC again
 * and decides anew); anything else as a host failure. Pure.
 */
function growthFailure(error: unknown, pvc: string, storage: string): unknown {
  if (isResizeRefusal(error))
    return new CsiError(
      'CSI_EXPANSION_REFUSED',
      `the host refused to grow ${pvc} to ${storage}: ${hostMessage(error)}`,
      { cause: error },
    );
  if (!isNotFound(error) && (error as { code?: number }).code === 409) return error;
  return hostFailure(error, `growing ${pvc}`);
}

/**
 * The pods of the host namespace with a volume of the PVC, from the API server's cache: whether
 * a pod uses the PVC only chooses how the growth is judged beforehand; the host's admission
 * judges the write itself.
 */
async function podsUsingPvc(host: HostRequests, name: string): Promise<string[]> {
  const { namespace } = host;
  const pods = await host.list<HostPod>({ ...PODS, namespace }, `pods in ${namespace}`, true);
  return podsMounting(pods, name);
}

/** The names of the pods with a volume of the PVC `claim`. Pure. */
function podsMounting(pods: HostPod[], claim: string): string[] {
  return pods
    .filter((pod) =>
      (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim),
    )
    .map((pod) => pod.metadata?.name ?? '');
}

/** A JSON patch of the VirtualMachine (its failure is the API error itself). */
async function patchVm(
  host: HostRequests,
  name: string,
  operations: JsonPatchOperation[],
): Promise<void> {
  await host.send({
    method: 'PATCH',
    path: resourcePath(host.named(VMS, name)),
    contentType: 'application/json-patch+json',
    body: operations,
  });
}
