import type { KubeConfig } from '@kubernetes/client-node';
import {
  isAlreadyExists,
  isNotFound,
  requestJson,
  resourcePath,
  type NamedResourceRef,
  type ResourceRef,
} from '../../kube/index.js';
import type { HarvesterSetting } from '../../settings/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi, WaitOptions } from './host-api.js';
import { hostFailure, hostMessage, isResizeRefusal } from './host-failure.js';
import { hostNamespaceOf } from './host-namespace.js';
import type {
  HostPod,
  HostPvc,
  HostStorageClass,
  HostVm,
  HostVmi,
  JsonPatchOperation,
} from './host-objects.js';
import { waitForObject } from './wait-for-object.js';

const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const SETTINGS = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' };
const STORAGE_CLASSES = { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses' };
const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const VM_SUBRESOURCES = {
  group: 'subresources.kubevirt.io',
  version: 'v1',
  plural: 'virtualmachines',
};

/** Each host request fails when the API server has not answered within this long. */
const REQUEST_TIMEOUT_MS = 20_000;

export interface KubeHostApiOptions {
  /** The host namespace; the kubeconfig context's (else `default`) unless told. */
  namespace?: string;
}

/** The production HostApi: the host's API server through `kubeConfig` (src/kube's requests and watches). */
export function createKubeHostApi(
  kubeConfig: KubeConfig,
  options: KubeHostApiOptions = {},
): HostApi {
  const namespace = options.namespace ?? hostNamespaceOf(kubeConfig);
  const inNamespace = (ref: ResourceRef, name: string): NamedResourceRef => ({
    ...ref,
    namespace,
    name,
  });
  const where = (kind: string, name: string): string => `${kind} ${namespace}/${name}`;

  async function get<T>(ref: NamedResourceRef, what: string): Promise<T | undefined> {
    try {
      return await requestJson<T>(kubeConfig, {
        method: 'GET',
        path: resourcePath(ref),
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw hostFailure(error, `reading ${what}`);
    }
  }

  async function list<T>(ref: ResourceRef, what: string, fromCache = false): Promise<T[]> {
    try {
      const body = await requestJson<{ items?: T[] }>(kubeConfig, {
        method: 'GET',
        path: resourcePath(ref),
        // resourceVersion=0: the API server's watch cache answers at once. A consistent list
        // first waits for that cache to catch up with etcd (tens of ms for a quiet resource).
        ...(fromCache ? { query: { resourceVersion: '0' } } : {}),
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
      return body.items ?? [];
    } catch (error) {
      throw hostFailure(error, `listing ${what}`);
    }
  }

  async function wait<T extends { metadata?: { resourceVersion?: string } }>(
    ref: NamedResourceRef,
    what: string,
    done: (object: T | undefined) => boolean,
    options: WaitOptions<T>,
  ): Promise<T | undefined> {
    try {
      return await waitForObject<T>(kubeConfig, ref, done, options);
    } catch (error) {
      if (options.signal.aborted && error === options.signal.reason) throw error;
      throw hostFailure(error, `watching ${what}`);
    }
  }

  async function putSubresource(vm: string, subresource: string, body: unknown): Promise<void> {
    try {
      await requestJson(kubeConfig, {
        method: 'PUT',
        path: resourcePath(inNamespace(VM_SUBRESOURCES, vm), subresource),
        body,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (error) {
      throw hostFailure(error, `${subresource} on VirtualMachine ${namespace}/${vm}`);
    }
  }

  return {
    namespace,

    async probe(signal) {
      await requestJson(kubeConfig, {
        method: 'GET',
        path: '/version',
        timeoutMs: 5_000,
        ...(signal ? { signal } : {}),
      });
    },

    getPvc: (name) => get<HostPvc>(inNamespace(PVCS, name), where('PVC', name)),

    async createPvc(body) {
      const name = body.metadata?.name ?? '';
      try {
        const pvc = await requestJson<HostPvc>(kubeConfig, {
          method: 'POST',
          path: resourcePath({ ...PVCS, namespace }),
          body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...body },
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
        return { created: true, pvc };
      } catch (error) {
        if (!isAlreadyExists(error)) throw hostFailure(error, `creating ${where('PVC', name)}`);
      }
      const existing = await get<HostPvc>(inNamespace(PVCS, name), where('PVC', name));
      // Deleted between the two calls: the next CreateVolume retry creates it.
      if (!existing)
        throw new CsiError(
          'CSI_HOST_UNAVAILABLE',
          `creating ${where('PVC', name)}: it existed, then was deleted before it could be read; retry`,
        );
      return { created: false, existing };
    },

    async deletePvc(name) {
      try {
        await requestJson(kubeConfig, {
          method: 'DELETE',
          path: resourcePath(inNamespace(PVCS, name)),
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw hostFailure(error, `deleting ${where('PVC', name)}`);
      }
    },

    async setPvcRequest(name, storage, resourceVersion) {
      try {
        return await requestJson<HostPvc>(kubeConfig, {
          method: 'PATCH',
          path: resourcePath(inNamespace(PVCS, name)),
          contentType: 'application/merge-patch+json',
          body: {
            metadata: { resourceVersion },
            spec: { resources: { requests: { storage } } },
          },
          timeoutMs: REQUEST_TIMEOUT_MS,
        });
      } catch (error) {
        if (isResizeRefusal(error))
          throw new CsiError(
            'CSI_EXPANSION_REFUSED',
            `the host refused to grow ${where('PVC', name)} to ${storage}: ${hostMessage(error)}`,
            { cause: error },
          );
        if (isNotFound(error)) throw hostFailure(error, `growing ${where('PVC', name)}`);
        // 409 Conflict is left as the API error: the caller reads the PVC again and decides anew.
        if ((error as { code?: number }).code === 409) throw error;
        throw hostFailure(error, `growing ${where('PVC', name)}`);
      }
    },

    waitForPvc: (name, done, options) =>
      wait<HostPvc>(inNamespace(PVCS, name), where('PVC', name), done, options),

    async podsUsingPvc(name) {
      // From the API server's cache: whether a pod uses the PVC only chooses how the growth is
      // judged beforehand; the host's admission judges the write itself.
      const pods = await list<HostPod>({ ...PODS, namespace }, `pods in ${namespace}`, true);
      return pods
        .filter((pod) =>
          (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === name),
        )
        .map((pod) => pod.metadata?.name ?? '');
    },

    getSetting: (name) => get<HarvesterSetting>({ ...SETTINGS, name }, `Setting ${name}`),

    getStorageClass: (name) =>
      get<HostStorageClass>({ ...STORAGE_CLASSES, name }, `StorageClass ${name}`),

    getVm: (name) => get<HostVm>(inNamespace(VMS, name), where('VirtualMachine', name)),

    listVms: () => list<HostVm>({ ...VMS, namespace }, `VirtualMachines in ${namespace}`),

    getVmi: (name) => get<HostVmi>(inNamespace(VMIS, name), where('VirtualMachineInstance', name)),

    listVmis: () =>
      list<HostVmi>({ ...VMIS, namespace }, `VirtualMachineInstances in ${namespace}`),

    async patchVm(name, operations: JsonPatchOperation[]) {
      await requestJson(kubeConfig, {
        method: 'PATCH',
        path: resourcePath(inNamespace(VMS, name)),
        contentType: 'application/json-patch+json',
        body: operations,
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    },

    addVolumeLegacy: (vm, body) => putSubresource(vm, 'addvolume', body),
    removeVolumeLegacy: (vm, body) => putSubresource(vm, 'removevolume', body),

    waitForVmi: (name, done, options) =>
      wait<HostVmi>(inNamespace(VMIS, name), where('VirtualMachineInstance', name), done, options),
  };
}
