import type { HarvesterSetting } from '../../settings/index.js';
import type {
  HostNetworkFilesystem,
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

/** Where a wait starts: the object as last read and its resourceVersion (a watch resumes from it). */
export interface WaitStart<T> {
  object: T | undefined;
  resourceVersion: string | undefined;
}

export interface WaitOptions<T> {
  /** Ends the wait (the promise rejects with the signal's reason). */
  signal: AbortSignal;
  /** The object as just read; without it the wait reads it first. */
  start?: WaitStart<T>;
}

/**
 * The host cluster as the bridge sees it: one namespace (the host kubeconfig context's), its
 * PVCs, pods, VirtualMachines and their instances, and the cluster's Settings and StorageClasses.
 * Production: createKubeHostApi. Failures are CsiErrors (CSI_HOST_UNAVAILABLE when the API does
 * not answer, CSI_HOST_REQUEST_FAILED for an answer the bridge cannot act on); reads of what does
 * not exist resolve undefined.
 */
export interface HostApi {
  readonly namespace: string;
  /**
   * The same host, whose every request and watch also ends when `signal` aborts (a call's
   * cancellation or deadline), so a cancelled call lets go of its volume's lock at once. Absent
   * where nothing waits on a network (test doubles).
   */
  withSignal?(signal: AbortSignal): HostApi;
  /** The HostApi this one was bound from by withSignal: the same host, for what is kept per host. */
  readonly base?: HostApi;
  /** Resolves when the host API answers (its /readyz), rejects otherwise. */
  probe(signal?: AbortSignal): Promise<void>;
  getPvc(name: string): Promise<HostPvc | undefined>;
  /** Creates the PVC; resolves `{created: false, existing}` when one of that name exists. */
  createPvc(
    body: HostPvc,
  ): Promise<{ created: true; pvc: HostPvc } | { created: false; existing: HostPvc }>;
  /** Deletes the PVC; false when there was none. */
  deletePvc(name: string): Promise<boolean>;
  /**
   * Sets the PVC's storage request (a merge patch carrying `resourceVersion`, so a PVC changed
   * meanwhile answers 409, rejected as the API error). A refusal by the host's admission is a
   * CsiError CSI_EXPANSION_REFUSED with the host's message.
   */
  setPvcRequest(name: string, storage: string, resourceVersion: string): Promise<HostPvc>;
  /** Resolves with the PVC once `done` holds for it (undefined: it does not exist), following a watch. */
  waitForPvc(
    name: string,
    done: (pvc: HostPvc | undefined) => boolean,
    options: WaitOptions<HostPvc>,
  ): Promise<HostPvc | undefined>;
  getVolumeSnapshot(name: string): Promise<HostVolumeSnapshot | undefined>;
  /** Creates the VolumeSnapshot; resolves `{created: false, existing}` when one of that name exists. */
  createVolumeSnapshot(
    body: HostVolumeSnapshot,
  ): Promise<
    | { created: true; snapshot: HostVolumeSnapshot }
    | { created: false; existing: HostVolumeSnapshot }
  >;
  /** Deletes the VolumeSnapshot; false when there was none. */
  deleteVolumeSnapshot(name: string): Promise<boolean>;
  /** The VolumeSnapshots of the namespace that carry the label `label` (any value). */
  listVolumeSnapshots(label: string): Promise<HostVolumeSnapshot[]>;
  /** The VolumeRemoteBackup (Harvester's backup snapshot) of the namespace. */
  getRemoteBackup(name: string): Promise<HostRemoteBackup | undefined>;
  /** Creates the VolumeRemoteBackup; resolves `{created: false, existing}` when one of that name exists. */
  createRemoteBackup(
    body: HostRemoteBackup,
  ): Promise<
    { created: true; backup: HostRemoteBackup } | { created: false; existing: HostRemoteBackup }
  >;
  /** Deletes the VolumeRemoteBackup; false when there was none. */
  deleteRemoteBackup(name: string): Promise<boolean>;
  /** The VolumeRemoteBackups of the namespace that carry the label `label` (any value); none on a host that does not serve the kind (Harvester before v1.8). */
  listRemoteBackups(label: string): Promise<HostRemoteBackup[]>;
  /** The VolumeRemoteRestore of the namespace. */
  getRemoteRestore(name: string): Promise<HostRemoteRestore | undefined>;
  /** Creates the VolumeRemoteRestore; resolves `{created: false, existing}` when one of that name exists. */
  createRemoteRestore(
    body: HostRemoteRestore,
  ): Promise<
    { created: true; restore: HostRemoteRestore } | { created: false; existing: HostRemoteRestore }
  >;
  /** Deletes the VolumeRemoteRestore; false when there was none. */
  deleteRemoteRestore(name: string): Promise<boolean>;
  /** Names of the host pods (in the namespace) that mount the PVC, as the API server's watch cache lists them. */
  podsUsingPvc(name: string): Promise<string[]>;
  /** A cluster-scoped harvesterhci.io Setting. */
  getSetting(name: string): Promise<HarvesterSetting | undefined>;
  getStorageClass(name: string): Promise<HostStorageClass | undefined>;
  /** The host's VolumeAttachments (cluster-scoped). */
  listVolumeAttachments(): Promise<HostVolumeAttachment[]>;
  getVm(name: string): Promise<HostVm | undefined>;
  listVms(): Promise<HostVm[]>;
  getVmi(name: string): Promise<HostVmi | undefined>;
  listVmis(): Promise<HostVmi[]>;
  /** A JSON Patch on the VirtualMachine (`application/json-patch+json`). */
  patchVm(name: string, operations: JsonPatchOperation[]): Promise<void>;
  /** KubeVirt's legacy hotplug: PUT .../virtualmachines/<vm>/addvolume (subresources.kubevirt.io). */
  addVolumeLegacy(vm: string, body: unknown): Promise<void>;
  /** KubeVirt's legacy unplug: PUT .../virtualmachines/<vm>/removevolume. */
  removeVolumeLegacy(vm: string, body: unknown): Promise<void>;
  /** KubeVirt's unplug from the running instance only: PUT .../virtualmachineinstances/<vmi>/removevolume. */
  removeVolumeFromVmi(vmi: string, body: unknown): Promise<void>;
  /** Resolves with the VMI once `done` holds for it (undefined: it does not exist), following a watch. */
  waitForVmi(
    name: string,
    done: (vmi: HostVmi | undefined) => boolean,
    options: WaitOptions<HostVmi>,
  ): Promise<HostVmi | undefined>;
  /**
   * Whether the host serves Harvester's NetworkFilesystems to these credentials (a list of those
   * of harvester-system answers), as Harvester's driver decides it offers RWX volumes; false when
   * the API answers 404 (no such CRD) or 403.
   */
  networkFilesystemsServed(): Promise<boolean>;
  /** The NetworkFilesystem `name` of harvester-system. */
  getNetworkFilesystem(name: string): Promise<HostNetworkFilesystem | undefined>;
  /** Creates the NetworkFilesystem in harvester-system; resolves `{created: false, existing}` when one of that name exists. */
  createNetworkFilesystem(
    body: HostNetworkFilesystem,
  ): Promise<
    | { created: true; networkFilesystem: HostNetworkFilesystem }
    | { created: false; existing: HostNetworkFilesystem }
  >;
  /**
   * A merge patch of the NetworkFilesystem (carrying its `resourceVersion`, so one changed
   * meanwhile answers 409, rejected as the API error).
   */
  patchNetworkFilesystem(name: string, patch: object): Promise<HostNetworkFilesystem>;
  /** Deletes the NetworkFilesystem; false when there was none. */
  deleteNetworkFilesystem(name: string): Promise<boolean>;
  /** Resolves with the NetworkFilesystem once `done` holds for it (undefined: it does not exist), following a watch. */
  waitForNetworkFilesystem(
    name: string,
    done: (object: HostNetworkFilesystem | undefined) => boolean,
    options: WaitOptions<HostNetworkFilesystem>,
  ): Promise<HostNetworkFilesystem | undefined>;
}
