/**
 * Test actors: what external-resizer, kubelet, virt-controller and virt-handler write during an
 * online expansion, written the same way through the API server (docs/tracker.md
 * "Tests"): PVC status through /status with the conditions, allocatedResources
 * and allocatedResourceStatuses each component sets; the PV's capacity; the VMI's
 * persistentVolumeClaimInfo; virt-launcher and hotplug pods; migration state. For the tracker's
 * integration tests, its benchmark and the demo, on a local control plane where those components
 * do not run; never against a user's cluster.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { keyOf, requestJson, resourcePath, retryOnConflict } from '../../kube/index.js';
import { hotplugPod, launcherPod, type HotplugVolume, type LauncherVolume } from './staged-pods.js';
import type {
  Pod,
  PvcCondition,
  PersistentVolumeClaim,
  VirtualMachineInstance,
} from '../../model/index.js';

type Json = Record<string, unknown>;
type Resource = { group: string; version: string; plural: string };

const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };

const MERGE = 'application/merge-patch+json';

function condition(type: string, message?: string): PvcCondition & Json {
  return {
    type,
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: new Date(Math.floor(Date.now() / 1000) * 1000)
      .toISOString()
      .replace('.000Z', 'Z'),
    ...(message ? { message } : {}),
  };
}

/**
 * What the peers read from their informers rather than the API server: external-resizer's PVCs
 * (its claim informer) and virt-controller's PVCs and VMIs. kubelet has no PVC informer: its
 * nodeExpandVolume reads the PVC from the API server (pkg/volume/util/operationexecutor
 * operation_generator.go).
 */
export interface PeerCaches {
  pvc(namespace: string, name: string): PersistentVolumeClaim | undefined;
  vmi(namespace: string, name: string): VirtualMachineInstance | undefined;
}

/** Where an actor reads the object it changes: its peer's informer, or the API server. */
type ReadFrom = 'informer' | 'api';

export class ExpansionActors {
  /** The last PVC status each informer-reading actor wrote, and the version it wrote over. */
  readonly #written = new Map<string, { over: string; pvc: PersistentVolumeClaim }>();

  /**
   * Without `caches` every actor reads through the API server; with them, external-resizer and
   * virt-controller read their informers, as they do (the bench, where requests count).
   */
  constructor(
    readonly kubeConfig: KubeConfig,
    readonly caches?: PeerCaches,
  ) {}

  /**
   * The PVC an actor changes. From the informer, a version this actor wrote over stands for
   * the object its own write answered, which the component goes on with (external-resizer's
   * sync carries the PVC its patches return). A retry after a conflict reads the API server.
   */
  async #readPvc(
    namespace: string,
    name: string,
    from: ReadFrom,
    attempt: number,
  ): Promise<PersistentVolumeClaim> {
    const cached = this.#cached(from, attempt, (caches) => caches.pvc(namespace, name));
    if (!cached) return this.#get<PersistentVolumeClaim>(PVCS, namespace, name);
    const written = this.#written.get(keyOf(namespace, name));
    return written && written.over === cached.metadata?.resourceVersion ? written.pvc : cached;
  }

  /** The informer's object, when the actor reads its informer and this is not a retry. */
  #cached<T>(
    from: ReadFrom,
    attempt: number,
    read: (caches: PeerCaches) => T | undefined,
  ): T | undefined {
    return from === 'informer' && attempt === 0 && this.caches ? read(this.caches) : undefined;
  }

  async #get<T>(ref: Resource, namespace: string | undefined, name: string): Promise<T> {
    return requestJson<T>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({ ...ref, ...(namespace ? { namespace } : {}), name }),
    });
  }

  async #patch(
    ref: Resource,
    namespace: string | undefined,
    name: string,
    body: Json,
    subresource?: string,
  ): Promise<Json> {
    return requestJson<Json>(this.kubeConfig, {
      method: 'PATCH',
      path: resourcePath({ ...ref, ...(namespace ? { namespace } : {}), name }, subresource),
      contentType: MERGE,
      body,
    });
  }

  /** A PVC status merge patch carrying the resourceVersion read (the components' optimistic lock). */
  async #pvcStatus(
    namespace: string,
    name: string,
    status: (pvc: PersistentVolumeClaim) => Json,
    from: ReadFrom = 'api',
  ): Promise<void> {
    await retryOnConflict(`PVC ${namespace}/${name} status`, async (attempt) => {
      const pvc = await this.#readPvc(namespace, name, from, attempt);
      const over = pvc.metadata?.resourceVersion ?? '';
      const written = await this.#patch(
        PVCS,
        namespace,
        name,
        { metadata: { resourceVersion: over }, status: status(pvc) },
        'status',
      );
      if (from === 'informer' && this.caches)
        this.#written.set(keyOf(namespace, name), { over, pvc: written as PersistentVolumeClaim });
    });
  }

  // external-resizer

  /** external-resizer picks the PVC: Resizing, allocatedResources = size, ControllerResizeInProgress. */
  async resizerStarts(namespace: string, name: string, size: string): Promise<void> {
    await this.#pvcStatus(
      namespace,
      name,
      () => ({
        conditions: [condition('Resizing')],
        allocatedResources: { storage: size },
        allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
      }),
      'informer',
    );
  }

  /** ControllerExpandVolume succeeded: the PV's spec.capacity. */
  async resizerGrowsPv(pvName: string, size: string): Promise<void> {
    await this.#patch(PVS, undefined, pvName, { spec: { capacity: { storage: size } } });
  }

  /** node_expansion_required: FileSystemResizePending (Resizing stays), NodeResizePending. */
  async resizerNeedsNode(namespace: string, name: string): Promise<void> {
    await this.#pvcStatus(
      namespace,
      name,
      () => ({
        conditions: [
          condition('Resizing'),
          condition(
            'FileSystemResizePending',
            'Waiting for user to (re-)start a pod to finish file system resize of volume on node.',
          ),
        ],
        allocatedResourceStatuses: { storage: 'NodeResizePending' },
      }),
      'informer',
    );
  }

  /**
   * ControllerExpandVolume answered node_expansion_required = false (Longhorn for a Block volume:
   * longhorn-manager csi/controller_server.go asks for it only for a mounted, online volume):
   * external-resizer's markPVCResizeFinished, with no node step: capacity = allocatedResources,
   * the resize conditions and status removed.
   */
  async resizerFinishes(namespace: string, name: string): Promise<void> {
    await this.#resizeFinished(namespace, name);
  }

  /** An infeasible gRPC code (InvalidArgument, OutOfRange, NotFound): ControllerResizeInfeasible and ControllerResizeError. */
  async resizerInfeasible(namespace: string, name: string, error: string): Promise<void> {
    await this.#pvcStatus(namespace, name, () => ({
      conditions: [condition('ControllerResizeError', `failed to expand pvc with ${error}`)],
      allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
    }));
  }

  /** After the user lowered the request below the failed size: the resizer starts over towards it. */
  async resizerRetargets(namespace: string, name: string, size: string): Promise<void> {
    await this.resizerStarts(namespace, name, size);
  }

  // kubelet

  /** kubelet's NodeExpandVolume starts: NodeResizeInProgress. */
  async kubeletStarts(namespace: string, name: string): Promise<void> {
    await this.#pvcStatus(namespace, name, () => ({
      allocatedResourceStatuses: { storage: 'NodeResizeInProgress' },
    }));
  }

  /** NodeExpandVolume succeeded: capacity = allocatedResources, resize conditions and status removed. */
  async kubeletFinishes(namespace: string, name: string): Promise<void> {
    await this.#resizeFinished(namespace, name);
  }

  /** The PVC's capacity set to what was allocated, the resize conditions and status removed (markPVCResizeFinished). */
  async #resizeFinished(namespace: string, name: string): Promise<void> {
    await this.#pvcStatus(namespace, name, (pvc) => ({
      capacity: { storage: pvc.status?.allocatedResources?.['storage'] },
      conditions: (pvc.status?.conditions ?? []).filter(
        (c) =>
          ![
            'Resizing',
            'FileSystemResizePending',
            'ControllerResizeError',
            'NodeResizeError',
          ].includes(c.type ?? ''),
      ),
      allocatedResourceStatuses: { storage: null },
    }));
  }

  /** NodeExpandVolume failed with an infeasible code: NodeResizeInfeasible and NodeResizeError. */
  async kubeletInfeasible(namespace: string, name: string, error: string): Promise<void> {
    await this.#pvcStatus(namespace, name, (pvc) => ({
      conditions: [
        ...(pvc.status?.conditions ?? []).filter((c) => c.type !== 'NodeResizeError'),
        condition('NodeResizeError', error),
      ],
      allocatedResourceStatuses: { storage: 'NodeResizeInfeasible' },
    }));
  }

  // virt-controller

  /** Reads the VMI, changes its status, writes it back (optimistic, retried on conflict). */
  async #vmiStatus(
    namespace: string,
    name: string,
    change: (vmi: VirtualMachineInstance) => void,
    from: ReadFrom = 'api',
  ): Promise<VirtualMachineInstance> {
    return retryOnConflict(`VMI ${namespace}/${name} status`, async (attempt) => {
      const cached = this.#cached(from, attempt, (caches) => caches.vmi(namespace, name));
      // An informer's object is shared: changed on a copy.
      const vmi = cached
        ? structuredClone(cached)
        : await this.#get<VirtualMachineInstance>(VMIS, namespace, name);
      change(vmi);
      return requestJson<VirtualMachineInstance>(this.kubeConfig, {
        method: 'PUT',
        path: resourcePath({ ...VMIS, namespace, name }, 'status'),
        body: vmi,
      });
    });
  }

  /**
   * virt-controller's sync of the VMI after its PVC informer saw a change (KubeVirt
   * pkg/virt-controller/watch/vmi updateVolumeStatus, its PersistentVolumeClaimInfo): `requests`
   * from the PVC's spec.resources.requests and `capacity` from its status.capacity, each as the
   * PVC holds it now. Right after the user's edit only `requests` changes; `capacity` follows
   * once the resizer or kubelet has written the PVC's new capacity.
   */
  async virtControllerSyncs(namespace: string, vmiName: string, claimName: string): Promise<void> {
    const pvc =
      this.caches?.pvc(namespace, claimName) ??
      (await this.#get<PersistentVolumeClaim>(PVCS, namespace, claimName));
    await this.#vmiStatus(
      namespace,
      vmiName,
      (vmi) => {
        for (const entry of vmi.status?.volumeStatus ?? []) {
          const info = entry.persistentVolumeClaimInfo;
          if (info?.claimName !== claimName) continue;
          if (pvc.status?.capacity) info.capacity = { ...pvc.status.capacity };
          if (pvc.spec?.resources?.requests) info.requests = { ...pvc.spec.resources.requests };
        }
      },
      'informer',
    );
  }

  /** virt-controller's copy with sizes given (e.g. a value no PVC would hold): capacity, and requests (capacity's when not given). */
  async virtControllerCopies(
    namespace: string,
    vmiName: string,
    claimName: string,
    sizes: { capacity: unknown; requests?: unknown },
  ): Promise<void> {
    await this.#vmiStatus(namespace, vmiName, (vmi) => {
      for (const entry of vmi.status?.volumeStatus ?? []) {
        const info = entry.persistentVolumeClaimInfo;
        if (info?.claimName !== claimName) continue;
        info.capacity = { storage: sizes.capacity };
        info.requests = { storage: sizes.requests ?? sizes.capacity };
      }
    });
  }

  /** virt-controller creates the VMI's virt-launcher pod (labels, owner); kubelet then reports it Running. */
  async createLauncher(
    vmi: VirtualMachineInstance,
    options: { name: string; node?: string; volumes?: LauncherVolume[] },
  ): Promise<Pod> {
    const namespace = vmi.metadata?.namespace ?? 'default';
    const pod = launcherPod(vmi, { ...options, uid: '' });
    return this.#createPod(namespace, pod);
  }

  /** virt-controller creates the hotplug attachment pod of a launcher with these volumes (a Block one's device path names its PVC's uid). */
  async createHotplugPod(
    launcher: Pod,
    options: { name: string; volumes: HotplugVolume[] },
  ): Promise<Pod> {
    const namespace = launcher.metadata?.namespace ?? 'default';
    const volumes: HotplugVolume[] = [];
    for (const volume of options.volumes) {
      if (volume.hold !== 'device' || volume.claimUid !== undefined) {
        volumes.push(volume);
        continue;
      }
      const claim = await this.#get<PersistentVolumeClaim>(PVCS, namespace, volume.claimName);
      volumes.push({ ...volume, claimUid: claim.metadata?.uid ?? '' });
    }
    const pod = hotplugPod(launcher, { ...options, volumes, uid: '' });
    return this.#createPod(namespace, pod);
  }

  async #createPod(namespace: string, pod: Pod): Promise<Pod> {
    const body = structuredClone(pod) as Pod & Json;
    delete body.metadata!.uid;
    delete body.status;
    const created = await requestJson<Pod>(this.kubeConfig, {
      method: 'POST',
      path: resourcePath({ ...PODS, namespace }),
      body,
    });
    return (await this.#patch(
      PODS,
      namespace,
      created.metadata?.name ?? '',
      { status: { phase: 'Running' } },
      'status',
    )) as Pod;
  }

  /** A pod deleted (the old hp pod once a new one holds the volumes; a launcher when the VM stops). */
  async deletePod(namespace: string, name: string): Promise<void> {
    await requestJson(this.kubeConfig, {
      method: 'DELETE',
      path: resourcePath({ ...PODS, namespace, name }),
      // No kubelet here to confirm the containers stopped.
      query: { gracePeriodSeconds: 0 },
    });
  }

  /** The VMI lists the active launcher pods (status.activePods: pod uid -> node). */
  async activePods(namespace: string, vmiName: string, pods: Pod[]): Promise<void> {
    await this.#vmiStatus(namespace, vmiName, (vmi) => {
      vmi.status = {
        ...vmi.status,
        activePods: Object.fromEntries(
          pods.map((pod) => [pod.metadata?.uid ?? '', pod.spec?.nodeName ?? '']),
        ),
      };
    });
  }

  // virt-handler (source and target) during a migration

  /** A migration starts: migrationState names source and target pods; both are active. */
  async migrationStarts(
    namespace: string,
    vmiName: string,
    source: Pod,
    target: Pod,
  ): Promise<void> {
    await this.#vmiStatus(namespace, vmiName, (vmi) => {
      vmi.status = {
        ...vmi.status,
        activePods: {
          [source.metadata?.uid ?? '']: source.spec?.nodeName ?? '',
          [target.metadata?.uid ?? '']: target.spec?.nodeName ?? '',
        },
        migrationState: {
          sourcePod: source.metadata?.name,
          targetPod: target.metadata?.name,
          sourceNode: source.spec?.nodeName,
          targetNode: target.spec?.nodeName,
          startTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          completed: false,
        },
      };
    });
  }

  /** The migration completed: the VMI runs on the target node. */
  async migrationCompletes(namespace: string, vmiName: string, target: Pod): Promise<void> {
    await this.#vmiStatus(namespace, vmiName, (vmi) => {
      vmi.status = {
        ...vmi.status,
        nodeName: target.spec?.nodeName,
        migrationState: {
          ...vmi.status?.migrationState,
          completed: true,
          endTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      };
    });
  }

  // the VM stopping (virt-controller deletes the VMI; the VM's status says Stopped)

  async vmStops(namespace: string, vmName: string, launchers: Pod[]): Promise<void> {
    for (const pod of launchers) await this.deletePod(namespace, pod.metadata?.name ?? '');
    await this.#patch(VMS, namespace, vmName, { spec: { runStrategy: 'Halted' } });
    // The domain shut down; virt-controller then drops its finalizers and the VMI goes.
    await this.#patch(VMIS, namespace, vmName, { status: { phase: 'Succeeded' } }, 'status');
    await this.#patch(VMIS, namespace, vmName, { metadata: { finalizers: null } });
    await requestJson(this.kubeConfig, {
      method: 'DELETE',
      path: resourcePath({ ...VMIS, namespace, name: vmName }),
    });
    await this.#patch(
      VMS,
      namespace,
      vmName,
      {
        status: {
          printableStatus: 'Stopped',
          ready: false,
          created: false,
          conditions: [{ type: 'Ready', status: 'False', reason: 'VMINotExists' }],
        },
      },
      'status',
    );
  }
}
