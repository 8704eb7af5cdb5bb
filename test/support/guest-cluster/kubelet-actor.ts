import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  Informer,
  isAlreadyExists,
  isNotFound,
  parseQuantityCeil,
  requestJson,
  resourcePath,
} from '../../../src/kube/index.js';
import { createCsiClient, type CsiClient } from '../guest-csi-bridge/csi-client.js';
import {
  attachmentName,
  deviceMountPath,
  podVolumePath,
  uniqueVolumeName,
} from './kubelet-paths.js';

const NODES = { group: '', version: 'v1', plural: 'nodes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const VAS = { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments' };
const CSINODES = { group: 'storage.k8s.io', version: 'v1', plural: 'csinodes' };
const MERGE = 'application/merge-patch+json';
/** kubelet's volume manager reconciler loopSleepDuration. */
const RECONCILE_MS = 100;
/** The PVC conditions util.MergeResizeConditionOnPVC treats as resize conditions (knownResizeConditions). */
const RESIZE_CONDITIONS = new Set([
  'FileSystemResizePending',
  'Resizing',
  'ControllerResizeError',
  'NodeResizeError',
]);

interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  deletionTimestamp?: string;
  annotations?: Record<string, string>;
}
interface Pod {
  metadata?: Meta;
  spec?: {
    nodeName?: string;
    serviceAccountName?: string;
    volumes?: Array<{
      name: string;
      persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
    }>;
  };
}
interface Pvc {
  metadata?: Meta;
  spec?: {
    volumeName?: string;
    accessModes?: string[];
    resources?: { requests?: Record<string, string> };
  };
  status?: {
    phase?: string;
    capacity?: Record<string, string>;
    allocatedResources?: Record<string, string>;
    allocatedResourceStatuses?: Record<string, string>;
    conditions?: Array<{ type: string }>;
  };
}
interface Pv {
  metadata?: Meta;
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    mountOptions?: string[];
    volumeMode?: string;
    claimRef?: { namespace?: string; name?: string };
    csi?: {
      driver: string;
      volumeHandle: string;
      fsType?: string;
      volumeAttributes?: Record<string, string>;
    };
  };
}
interface Va {
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string> };
}
interface Node {
  status?: { volumesAttached?: Array<{ name: string; devicePath: string }> };
}

/** A volume kubelet has staged (MountDevice) and the pods it has published it to (SetUp). */
interface MountedVolume {
  pv: string;
  handle: string;
  stagingPath: string;
  capability: Record<string, unknown>;
  /** The size kubelet's actual state of world records for it (persistentVolumeSize). */
  size: bigint;
  /** pod uid -> target path */
  pods: Map<string, string>;
}

export interface KubeletActorOptions {
  kubeConfig: KubeConfig;
  nodeName: string;
  /** The CSI driver's socket (what node-driver-registrar registers with kubelet). */
  socket: string;
  /** kubelet's --root-dir. */
  kubeletDir: string;
}

function bytes(quantity: string | undefined): bigint {
  return quantity ? parseQuantityCeil(quantity) : 0n;
}

/**
 * Plays kubelet (Kubernetes v1.33) for one guest node, and node-driver-registrar beside it, for
 * the PVC volumes of the pods bound to the node, over the CSI driver's socket:
 * - registration: the Node as kubelet_node_status.go initialNode writes it (controller-managed
 *   attach-detach annotation); then, as the registrar hands the socket to kubelet, the plugin's
 *   RegisterPlugin: NodeGetInfo, the node-id annotation and the CSINode driver entry
 *   (nodeinfomanager.InstallCSIDriver);
 * - the volume manager's reconciler, every 100 ms, in its order: report the volume in
 *   node.status.volumesInUse; VerifyControllerAttachedVolume (node.status.volumesAttached, written
 *   by the attach-detach controller); csi_attacher WaitForAttach (the VolumeAttachment attached)
 *   and MountDevice (NodeStageVolume); csi_mounter SetUpAt (NodePublishVolume); for a mounted
 *   volume whose PV grew, operation_generator GenerateExpandInUseVolumeFunc and NodeExpander
 *   (NodeExpandVolume and the PVC status writes of resize_util.go); for a pod gone or deleted,
 *   TearDown (NodeUnpublishVolume), UnmountDevice (NodeUnstageVolume), the volume out of
 *   volumesInUse, and, as the status manager does, the deleted pod's final delete (grace 0).
 * Errors are collected in `errors` and retried on the next pass, as the reconciler retries.
 */
export class KubeletActor {
  readonly #options: KubeletActorOptions;
  readonly #client: CsiClient;
  readonly #pods: Informer;
  readonly #pvs: Informer;
  readonly #pvcs: Informer;
  readonly #mounted = new Map<string, MountedVolume>();
  readonly #inUse = new Set<string>();
  readonly errors: unknown[] = [];
  /** The NodeExpandVolume calls made, per PV. */
  readonly nodeExpansions = new Map<string, number>();
  #driver = '';
  #capabilities = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: KubeletActorOptions) {
    this.#options = options;
    const { kubeConfig, nodeName } = options;
    this.#client = createCsiClient(options.socket);
    this.#pods = new Informer({
      kubeConfig,
      resource: PODS,
      fieldSelector: `spec.nodeName=${nodeName}`,
    });
    this.#pvs = new Informer({ kubeConfig, resource: PVS });
    this.#pvcs = new Informer({ kubeConfig, resource: PVCS });
  }

  /** Registers the node and the plugin, then runs the reconciler. */
  async start(): Promise<void> {
    await this.#registerNode();
    await this.#registerPlugin();
    await Promise.all([this.#pods.start(), this.#pvs.start(), this.#pvcs.start()]);
    this.#loop();
  }

  /** Where kubelet staged the PV's volume (NodeStage's staging_target_path), once staged. */
  stagingPath(pv: string): string | undefined {
    return this.#mounted.get(pv)?.stagingPath;
  }

  /** Where the PV is published for a pod (NodePublish's target_path), once published. */
  targetPath(pv: string, podUid: string): string | undefined {
    return this.#mounted.get(pv)?.pods.get(podUid);
  }

  /** Stops the reconciler, then unpublishes and unstages what is still mounted. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await Promise.all([this.#pods.stop(), this.#pvs.stop(), this.#pvcs.stop()]);
    for (const volume of [...this.#mounted.values()]) {
      for (const podUid of [...volume.pods.keys()])
        await this.#tearDown(volume, podUid).catch((e: unknown) => this.errors.push(e));
      await this.#unmountDevice(volume).catch((e: unknown) => this.errors.push(e));
    }
    this.#client.close();
  }

  #loop(): void {
    if (this.#stopped) return;
    this.#running = this.#reconcile()
      .catch((error: unknown) => {
        // The last few only: a step that keeps failing fails on every pass.
        this.errors.push(error);
        if (this.errors.length > 20) this.errors.shift();
      })
      .finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(() => this.#loop(), RECONCILE_MS);
      });
  }

  async #request<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    return requestJson<T>(this.#options.kubeConfig, {
      method,
      path,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
    });
  }

  /** kubelet_node_status.go initialNode and registerWithAPIServer. */
  async #registerNode(): Promise<void> {
    const { nodeName } = this.#options;
    await this.#request('POST', resourcePath(NODES), {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName,
        labels: {
          'kubernetes.io/hostname': nodeName,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'beta.kubernetes.io/arch': 'amd64',
        },
        annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      },
      spec: {},
    }).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
  }

  /**
   * node-driver-registrar (GetPluginInfo for the driver's name) and kubelet's csi_plugin.go
   * RegistrationHandler.RegisterPlugin: NodeGetInfo, then nodeinfomanager.InstallCSIDriver: the
   * node's csi.volume.kubernetes.io/nodeid annotation and the driver in the node's CSINode (which
   * kubelet creates at start, owned by the Node).
   */
  async #registerPlugin(): Promise<void> {
    const { nodeName } = this.#options;
    const info = await this.#client.call<{ name: string }>('Identity', 'GetPluginInfo');
    this.#driver = info.name;
    const nodeInfo = await this.#client.call<{ node_id: string; max_volumes_per_node?: string }>(
      'Node',
      'NodeGetInfo',
    );
    const caps = await this.#client.call<{ capabilities?: Array<{ rpc?: { type?: string } }> }>(
      'Node',
      'NodeGetCapabilities',
    );
    this.#capabilities = new Set(
      (caps.capabilities ?? []).map((c) => c.rpc?.type ?? '').filter(Boolean),
    );
    const node = await this.#request<{ metadata: { uid: string } }>(
      'GET',
      resourcePath({ ...NODES, name: nodeName }),
    );
    await this.#request(
      'PATCH',
      resourcePath({ ...NODES, name: nodeName }),
      {
        metadata: {
          annotations: {
            'csi.volume.kubernetes.io/nodeid': JSON.stringify({ [info.name]: nodeInfo.node_id }),
          },
        },
      },
      MERGE,
    );
    const max = Number(nodeInfo.max_volumes_per_node ?? 0);
    await this.#request('POST', resourcePath(CSINODES), {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: {
        name: nodeName,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid },
        ],
      },
      spec: {
        drivers: [
          {
            name: info.name,
            nodeID: nodeInfo.node_id,
            topologyKeys: null,
            ...(max > 0 ? { allocatable: { count: max } } : {}),
          },
        ],
      },
    });
  }

  /** One pass of the volume manager: desired state from the node's pods, then mount, expand, unmount. */
  async #reconcile(): Promise<void> {
    const desired = this.#desiredVolumes();
    await this.#reportInUse(new Set([...desired.keys(), ...this.#mounted.keys()]));
    for (const [pvName, pods] of desired)
      for (const pod of pods) await this.#mountForPod(pvName, pod);
    for (const volume of [...this.#mounted.values()]) await this.#expandIfGrown(volume);
    for (const volume of [...this.#mounted.values()]) {
      const wanted = new Set((desired.get(volume.pv) ?? []).map((p) => p.metadata?.uid ?? ''));
      for (const podUid of [...volume.pods.keys()])
        if (!wanted.has(podUid)) await this.#tearDown(volume, podUid);
      if (volume.pods.size === 0 && !desired.has(volume.pv)) await this.#unmountDevice(volume);
    }
    await this.#reportInUse(new Set([...desired.keys(), ...this.#mounted.keys()]));
    await this.#finishDeletedPods();
  }

  /** The desired state of world populator: PV name -> the live pods of this node that use it (its CSI driver's PVs only). */
  #desiredVolumes(): Map<string, Pod[]> {
    const desired = new Map<string, Pod[]>();
    for (const pod of this.#pods.list() as Pod[]) {
      if (pod.metadata?.deletionTimestamp) continue;
      for (const volume of pod.spec?.volumes ?? []) {
        const claim = volume.persistentVolumeClaim?.claimName;
        if (!claim) continue;
        const pvc = this.#pvcs.get(pod.metadata?.namespace, claim) as Pvc | undefined;
        const pvName = pvc?.status?.phase === 'Bound' ? pvc.spec?.volumeName : undefined;
        const pv = pvName ? (this.#pvs.get(undefined, pvName) as Pv | undefined) : undefined;
        if (!pv?.spec?.csi || pv.spec.csi.driver !== this.#driver) continue;
        desired.set(pvName!, [...(desired.get(pvName!) ?? []), pod]);
      }
    }
    return desired;
  }

  /** kubelet's node status: volumesInUse is the volume manager's GetVolumesInUse (sorted unique names). */
  async #reportInUse(pvNames: Set<string>): Promise<void> {
    const names = new Set<string>();
    for (const pvName of pvNames) {
      const pv = this.#pvs.get(undefined, pvName) as Pv | undefined;
      const handle = pv?.spec?.csi?.volumeHandle ?? this.#mounted.get(pvName)?.handle;
      if (handle) names.add(uniqueVolumeName(this.#driver, handle));
    }
    if ([...names].sort().join() === [...this.#inUse].sort().join()) return;
    await this.#request(
      'PATCH',
      resourcePath({ ...NODES, name: this.#options.nodeName }, 'status'),
      { status: { volumesInUse: [...names].sort() } },
      MERGE,
    );
    this.#inUse.clear();
    for (const name of names) this.#inUse.add(name);
  }

  /**
   * reconciler mountOrAttachVolumes for one pod's volume: VerifyControllerAttachedVolume,
   * WaitForAttach, MountDevice (NodeStageVolume) when not staged, SetUp (NodePublishVolume).
   */
  async #mountForPod(pvName: string, pod: Pod): Promise<void> {
    const podUid = pod.metadata?.uid ?? '';
    if (this.#mounted.get(pvName)?.pods.has(podUid)) return;
    const pv = this.#pvs.get(undefined, pvName) as Pv;
    const csi = pv.spec!.csi!;
    const unique = uniqueVolumeName(this.#driver, csi.volumeHandle);
    if (!this.#inUse.has(unique)) return; // reported in use first
    const node = await this.#request<Node>(
      'GET',
      resourcePath({ ...NODES, name: this.#options.nodeName }),
    );
    if (!(node.status?.volumesAttached ?? []).some((v) => v.name === unique)) return;
    const va = await this.#request<Va>(
      'GET',
      resourcePath({
        ...VAS,
        name: attachmentName(csi.volumeHandle, csi.driver, this.#options.nodeName),
      }),
    ).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (va?.status?.attached !== true) return;
    const publishContext = va.status.attachmentMetadata ?? {};
    const volume = this.#mounted.get(pvName) ?? (await this.#mountDevice(pv, publishContext));
    await this.#setUp(volume, pv, pod, publishContext);
  }

  /** csi_client.go asCSIAccessModeV1 (with SINGLE_NODE_MULTI_WRITER when the node advertises it). */
  #accessMode(pv: Pv): string {
    const mode = pv.spec?.accessModes?.[0] ?? 'ReadWriteOnce';
    const multi = this.#capabilities.has('SINGLE_NODE_MULTI_WRITER');
    switch (mode) {
      case 'ReadOnlyMany':
        return 'MULTI_NODE_READER_ONLY';
      case 'ReadWriteMany':
        return 'MULTI_NODE_MULTI_WRITER';
      case 'ReadWriteOncePod':
        return multi ? 'SINGLE_NODE_SINGLE_WRITER' : 'SINGLE_NODE_WRITER';
      default:
        return multi ? 'SINGLE_NODE_MULTI_WRITER' : 'SINGLE_NODE_WRITER';
    }
  }

  /** csi_attacher.go MountDevice: the staging directory, then NodeStageVolume. */
  async #mountDevice(pv: Pv, publishContext: Record<string, string>): Promise<MountedVolume> {
    const csi = pv.spec!.csi!;
    const stagingPath = deviceMountPath(this.#options.kubeletDir, csi.driver, csi.volumeHandle);
    await mkdir(stagingPath, { recursive: true, mode: 0o750 });
    const capability = {
      mount: { fs_type: csi.fsType ?? '', mount_flags: pv.spec?.mountOptions ?? [] },
      access_mode: { mode: this.#accessMode(pv) },
    };
    await this.#client.call('Node', 'NodeStageVolume', {
      volume_id: csi.volumeHandle,
      publish_context: publishContext,
      staging_target_path: stagingPath,
      volume_capability: capability,
      secrets: {},
      volume_context: csi.volumeAttributes ?? {},
    });
    const volume: MountedVolume = {
      pv: pv.metadata?.name ?? '',
      handle: csi.volumeHandle,
      stagingPath,
      capability,
      size: bytes(pv.spec?.capacity?.['storage']),
      pods: new Map(),
    };
    this.#mounted.set(volume.pv, volume);
    return volume;
  }

  /** csi_mounter.go SetUpAt: the target's parent directory, the pod's info (podInfoOnMount), NodePublishVolume. */
  async #setUp(
    volume: MountedVolume,
    pv: Pv,
    pod: Pod,
    publishContext: Record<string, string>,
  ): Promise<void> {
    const podUid = pod.metadata?.uid ?? '';
    const target = podVolumePath(this.#options.kubeletDir, podUid, volume.pv);
    await mkdir(dirname(target), { recursive: true, mode: 0o750 });
    const readOnly = (pod.spec?.volumes ?? []).some(
      (v) =>
        v.persistentVolumeClaim?.readOnly === true &&
        v.persistentVolumeClaim.claimName === pv.spec?.claimRef?.name,
    );
    await this.#client.call('Node', 'NodePublishVolume', {
      volume_id: volume.handle,
      publish_context: publishContext,
      staging_target_path: volume.stagingPath,
      target_path: target,
      volume_capability: volume.capability,
      readonly: readOnly,
      secrets: {},
      volume_context: {
        ...(pv.spec?.csi?.volumeAttributes ?? {}),
        'csi.storage.k8s.io/pod.name': pod.metadata?.name ?? '',
        'csi.storage.k8s.io/pod.namespace': pod.metadata?.namespace ?? '',
        'csi.storage.k8s.io/pod.uid': podUid,
        'csi.storage.k8s.io/serviceAccount.name': pod.spec?.serviceAccountName ?? 'default',
        'csi.storage.k8s.io/ephemeral': 'false',
      },
    });
    volume.pods.set(podUid, target);
  }

  /**
   * GenerateExpandInUseVolumeFunc for a mounted volume whose PV capacity is above the size the
   * actual state of world records: nodeExpandVolume with OldSize that size and NewSize the PV's
   * (the PVC's allocatedResources once the resizer wrote them: checkForRecoveryFromExpansion),
   * through NodeExpander.expandOnPlugin.
   */
  async #expandIfGrown(volume: MountedVolume): Promise<void> {
    const pv = this.#pvs.get(undefined, volume.pv) as Pv | undefined;
    const desiredSize = bytes(pv?.spec?.capacity?.['storage']);
    if (!pv || desiredSize <= volume.size) return;
    const ref = pv.spec?.claimRef;
    const pvc = await this.#request<Pvc>(
      'GET',
      resourcePath({ ...PVCS, namespace: ref?.namespace ?? '', name: ref?.name ?? '' }),
    );
    const status = pvc.status?.allocatedResourceStatuses?.['storage'] ?? '';
    const recovery = status !== '' || pvc.status?.allocatedResources !== undefined;
    const newSize = recovery
      ? (pvc.status?.allocatedResources?.['storage'] ?? pv.spec!.capacity!['storage']!)
      : pv.spec!.capacity!['storage']!;
    // runPreCheck
    const statusCap = bytes(pvc.status?.capacity?.['storage']);
    const alreadyUpdated = statusCap >= bytes(newSize) && status === '';
    if (alreadyUpdated) {
      volume.size = bytes(newSize);
      return;
    }
    if (status !== 'NodeResizePending' && status !== 'NodeResizeInProgress') return;
    await this.#patchPvcStatus(pvc, {
      allocatedResourceStatuses: {
        ...pvc.status?.allocatedResourceStatuses,
        storage: 'NodeResizeInProgress',
      },
    });
    await this.#nodeExpand(volume, newSize);
    // util.MarkNodeExpansionFinishedWithRecovery
    const statuses = { ...pvc.status?.allocatedResourceStatuses };
    delete statuses['storage'];
    await this.#patchPvcStatus(pvc, {
      capacity: { ...pvc.status?.capacity, storage: newSize },
      allocatedResourceStatuses: Object.keys(statuses).length ? statuses : null,
      conditions: (pvc.status?.conditions ?? []).filter((c) => !RESIZE_CONDITIONS.has(c.type)),
    });
    volume.size = bytes(newSize);
  }

  /** csi/expander.go NodeExpand: NodeExpandVolume when the node advertises EXPAND_VOLUME. */
  async #nodeExpand(volume: MountedVolume, newSize: string): Promise<void> {
    if (!this.#capabilities.has('EXPAND_VOLUME')) return;
    const [target] = [...volume.pods.values()];
    await this.#client.call('Node', 'NodeExpandVolume', {
      volume_id: volume.handle,
      volume_path: target ?? volume.stagingPath,
      capacity_range: { required_bytes: String(bytes(newSize)) },
      staging_target_path: volume.stagingPath,
      volume_capability: volume.capability,
    });
    this.nodeExpansions.set(volume.pv, (this.nodeExpansions.get(volume.pv) ?? 0) + 1);
  }

  /** util.PatchPVCStatus: a merge patch of the status subresource. */
  async #patchPvcStatus(pvc: Pvc, status: Record<string, unknown>): Promise<void> {
    await this.#request(
      'PATCH',
      resourcePath(
        { ...PVCS, namespace: pvc.metadata?.namespace ?? '', name: pvc.metadata?.name ?? '' },
        'status',
      ),
      { status },
      MERGE,
    );
  }

  /** csi_mounter.go TearDownAt: NodeUnpublishVolume, then the pod's volume directory removed. */
  async #tearDown(volume: MountedVolume, podUid: string): Promise<void> {
    const target = volume.pods.get(podUid)!;
    await this.#client.call('Node', 'NodeUnpublishVolume', {
      volume_id: volume.handle,
      target_path: target,
    });
    await rm(dirname(target), { recursive: true, force: true });
    volume.pods.delete(podUid);
  }

  /** csi_attacher.go UnmountDevice: NodeUnstageVolume, then the staging directory removed. */
  async #unmountDevice(volume: MountedVolume): Promise<void> {
    await this.#client.call('Node', 'NodeUnstageVolume', {
      volume_id: volume.handle,
      staging_target_path: volume.stagingPath,
    });
    await rm(dirname(volume.stagingPath), { recursive: true, force: true });
    this.#mounted.delete(volume.pv);
  }

  /** The status manager: a deleted pod whose volumes are torn down is deleted for good (grace 0). */
  async #finishDeletedPods(): Promise<void> {
    for (const pod of this.#pods.list() as Pod[]) {
      if (!pod.metadata?.deletionTimestamp) continue;
      const uid = pod.metadata.uid ?? '';
      if ([...this.#mounted.values()].some((v) => v.pods.has(uid))) continue;
      await this.#request(
        'DELETE',
        `${resourcePath({ ...PODS, namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' })}?gracePeriodSeconds=0`,
        { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid } },
      ).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
    }
  }
}
