import { access, mkdir, rm, symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  Informer,
  isAlreadyExists,
  isNotFound,
  parseQuantityCeil,
  requestJson,
  resourcePath,
} from '../../../src/kube/index.js';
import type {
  HostPvc,
  HostRemoteBackup,
  HostRemoteRestore,
  HostVm,
  HostVmi,
  HostVolumeSnapshot,
  VolumeStatus,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import {
  reconcileRemoteBackups,
  REMOTE_BACKUPS,
  REMOTE_RESTORES,
} from './host-remote-backup-actor.js';
import { createScratch, sh, type LoopDevice, type Scratch } from '../fsresize/loop-device.js';
import {
  reconcileHostSnapshots,
  restoreReady,
  VOLUME_SNAPSHOT_CONTENTS,
  VOLUME_SNAPSHOTS,
  type HostSnapshotContent,
} from './host-snapshot-actor.js';
import { ReconcileLoop } from './reconcile-loop.js';

const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const SCS = { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses' };
const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const LONGHORN_VOLUMES = {
  group: 'longhorn.io',
  version: 'v1beta2',
  plural: 'volumes',
  namespace: 'longhorn-system',
};
const MERGE = 'application/merge-patch+json';

export interface HostStorageActorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Where the guest sees its disks by id (the driver's --device-dir): a link per hotplugged volume. */
  deviceDirectory: string;
  /** Hotplugged volumes become loop devices (needs root); without it, the VMI status alone is written. */
  loopDevices?: boolean;
  /**
   * Also play the host's snapshot-controller and csi-snapshotter (host-snapshot-actor.ts), and
   * provision PVCs restored from VolumeSnapshots once those are ready (needs the snapshot CRDs).
   */
  snapshots?: boolean;
  /**
   * Also play Harvester's VolumeRemoteBackup and VolumeRemoteRestore controllers
   * (host-remote-backup-actor.ts; needs `snapshots` and the CRDs of remote-backup-crds.ts).
   */
  remoteBackups?: boolean;
}

interface Attachment {
  volume: string;
  target: string;
  loop?: LoopDevice;
  link?: string;
  pod: string;
}

/** A by-id name as a Linux guest sees a KubeVirt hotplugged SCSI disk. */
export function byIdName(volume: string): string {
  return `scsi-0QEMU_QEMU_HARDDISK_drive-ua-${volume}`;
}

function bytesOf(quantity: string | undefined): bigint {
  return quantity ? parseQuantityCeil(quantity) : 0n;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A sparse copy of a volume image: only the written blocks take room. */
async function copySparse(from: string, to: string): Promise<void> {
  await sh('cp', ['--sparse=always', from, to]);
}

/**
 * Plays the host's storage and hypervisor for a guest cluster's volumes, writing what the real
 * components write, level-based from what it watches in one host namespace:
 * - the PV binder and the storage's provisioner: a Pending PVC gets a CSI PV of its request (and,
 *   for Longhorn, a Longhorn Volume of the v1 data engine) and is Bound with that capacity; a deleted PVC loses its protection finalizer once no VM uses it,
 *   and its PV is deleted;
 * - the host's external-resizer: a Bound PVC whose request is above its capacity gets PV and PVC
 *   capacity of the request, at once (after `release` when `hold` was called for it; marked
 *   ControllerResizeInfeasible instead when `refuseGrowth` names it);
 * - KubeVirt's hotplug: a hotpluggable volume in a VM's spec gets a hotplug pod that mounts the
 *   PVC, a loop device of the PVC's capacity linked under the guest's by-id name, and a VMI
 *   volumeStatus entry (Ready, hotplugVolume); a volume removed from the spec loses all three;
 *   a PVC that grows grows its loop device (the hypervisor's BlockResize);
 * - with `snapshots`, the host's snapshot controller and snapshotter (host-snapshot-actor.ts), and
 *   a PVC restored from a VolumeSnapshot provisioned only once that snapshot is ready; a snapshot
 *   of a hotplugged volume keeps a copy of its loop device under its handle (a backup, on the
 *   backup target directory), which the restored volume gets before it is bound;
 * - with `remoteBackups`, Harvester's VolumeRemoteBackup and VolumeRemoteRestore controllers
 *   (host-remote-backup-actor.ts): their backup is such a snapshot on Longhorn's backup class, their
 *   restore a PVC from a pre-provisioned snapshot of the backup's handle, so it holds the backup's
 *   data.
 * It also counts the writes of each PVC's request, as the API server delivered them.
 */
export class HostStorageActor {
  readonly #options: HostStorageActorOptions;
  readonly #pvcs: Informer;
  readonly #vms: Informer;
  readonly #snapshots: Informer | undefined;
  readonly #contents: Informer | undefined;
  readonly #remoteBackups: Informer | undefined;
  readonly #remoteRestores: Informer | undefined;
  readonly #attachments = new Map<string, Map<string, Attachment>>();
  readonly #requestWrites = new Map<string, number>();
  readonly #provisioners = new Map<string, string>();
  readonly refuseGrowth = new Set<string>();
  readonly #heldGrowth = new Set<string>();
  #scratch: Scratch | undefined;
  #targets = 0;
  readonly errors: unknown[] = [];
  readonly #loop = new ReconcileLoop(
    () => this.#reconcile(),
    (error) => this.errors.push(error),
  );

  constructor(options: HostStorageActorOptions) {
    this.#options = options;
    const { kubeConfig, namespace } = options;
    this.#pvcs = new Informer({ kubeConfig, resource: { ...PVCS, namespace } });
    this.#vms = new Informer({ kubeConfig, resource: { ...VMS, namespace } });
    if (options.snapshots) {
      this.#snapshots = new Informer({ kubeConfig, resource: { ...VOLUME_SNAPSHOTS, namespace } });
      this.#contents = new Informer({ kubeConfig, resource: VOLUME_SNAPSHOT_CONTENTS });
    }
    if (options.remoteBackups) {
      this.#remoteBackups = new Informer({
        kubeConfig,
        resource: { ...REMOTE_BACKUPS, namespace },
      });
      this.#remoteRestores = new Informer({
        kubeConfig,
        resource: { ...REMOTE_RESTORES, namespace },
      });
    }
    this.#pvcs.on('update', (pvc, old) => {
      const now = (pvc as HostPvc).spec?.resources?.requests?.['storage'];
      const before = (old as HostPvc).spec?.resources?.requests?.['storage'];
      if (now !== before) {
        const name = pvc.metadata?.name ?? '';
        this.#requestWrites.set(name, (this.#requestWrites.get(name) ?? 0) + 1);
      }
    });
    for (const informer of this.#informers())
      for (const event of ['add', 'update', 'delete', 'sync'] as const)
        informer.on(event, () => this.#loop.kick());
  }

  #informers(): Informer[] {
    return [
      this.#pvcs,
      this.#vms,
      this.#snapshots,
      this.#contents,
      this.#remoteBackups,
      this.#remoteRestores,
    ].filter((informer): informer is Informer => informer !== undefined);
  }

  async start(): Promise<void> {
    await mkdir(this.#options.deviceDirectory, { recursive: true });
    if (this.#options.loopDevices !== false) this.#scratch = await createScratch('voe-csi-host-');
    await Promise.all(this.#informers().map((informer) => informer.start()));
    this.#loop.kick();
  }

  /** The host takes its time: PVC `name` does not grow until `release(name)`. */
  hold(name: string): void {
    this.#heldGrowth.add(name);
  }

  /** Lets PVC `name` grow again (at once, if its request is above its capacity). */
  release(name: string): void {
    this.#heldGrowth.delete(name);
    this.#loop.kick();
  }

  /** How many times the PVC's storage request was changed since the actor started. */
  requestWrites(name: string): number {
    return this.#requestWrites.get(name) ?? 0;
  }

  /** The loop device of a hotplugged volume. */
  deviceOf(volume: string): string | undefined {
    return this.#loopOf(volume)?.device;
  }

  /** Resolves once the actor has handled everything it has seen so far. */
  async settled(): Promise<void> {
    await this.#loop.settled();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers().map((informer) => informer.stop()));
    await this.#loop.stop();
    for (const byVolume of this.#attachments.values())
      for (const attachment of byVolume.values())
        if (attachment.link) await rm(attachment.link, { force: true });
    this.#attachments.clear();
    await this.#scratch?.cleanup();
  }

  async #request<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
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

  async #provisionerOf(className: string | undefined | null): Promise<string> {
    if (!className) return 'driver.longhorn.io';
    const known = this.#provisioners.get(className);
    if (known) return known;
    const sc = await this.#request<{ provisioner?: string }>(
      'GET',
      resourcePath({ ...SCS, name: className }),
    ).catch(() => undefined);
    const provisioner = sc?.provisioner ?? 'driver.longhorn.io';
    this.#provisioners.set(className, provisioner);
    return provisioner;
  }

  #usedByVm(name: string): boolean {
    return (this.#vms.list() as HostVm[]).some((vm) =>
      (vm.spec?.template?.spec?.volumes ?? []).some(
        (v) => v.persistentVolumeClaim?.claimName === name,
      ),
    );
  }

  async #reconcile(): Promise<void> {
    const { namespace } = this.#options;
    const snapshots = (this.#snapshots?.list() ?? []) as HostVolumeSnapshot[];
    if (this.#snapshots)
      await reconcileHostSnapshots(
        (method, path, body, contentType) => this.#request(method, path, body, contentType),
        namespace,
        snapshots,
        (this.#contents?.list() ?? []) as HostSnapshotContent[],
        (handle, claim) => this.#keepSnapshotData(handle, claim),
      );
    if (this.#remoteBackups && this.#remoteRestores)
      await reconcileRemoteBackups(
        (method, path, body, contentType) => this.#request(method, path, body, contentType),
        namespace,
        {
          backups: this.#remoteBackups.list() as HostRemoteBackup[],
          restores: this.#remoteRestores.list() as HostRemoteRestore[],
          snapshots,
          contents: (this.#contents?.list() ?? []) as HostSnapshotContent[],
          pvcs: this.#pvcs.list() as HostPvc[],
        },
      );
    for (const pvc of this.#pvcs.list() as HostPvc[]) {
      const name = pvc.metadata?.name ?? '';
      const ref = { ...PVCS, namespace, name };
      if (pvc.metadata?.deletionTimestamp) {
        if (this.#usedByVm(name)) continue;
        if (pvc.spec?.volumeName)
          await this.#request('DELETE', resourcePath({ ...PVS, name: pvc.spec.volumeName })).catch(
            (e: unknown) => {
              if (!isNotFound(e)) throw e;
            },
          );
        if (((pvc.metadata as { finalizers?: string[] }).finalizers ?? []).length > 0)
          await this.#request(
            'PATCH',
            resourcePath(ref),
            { metadata: { finalizers: null } },
            MERGE,
          ).catch((e: unknown) => {
            if (!isNotFound(e)) throw e;
          });
        continue;
      }
      const request = pvc.spec?.resources?.requests?.['storage'] ?? '0';
      if (pvc.status?.phase !== 'Bound') {
        if (restoreReady(pvc, snapshots)) await this.#bind(pvc, request);
        continue;
      }
      const capacity = pvc.status?.capacity?.['storage'];
      if (bytesOf(request) > bytesOf(capacity)) {
        if (this.#heldGrowth.has(name)) continue;
        if (this.refuseGrowth.has(name)) {
          if (
            pvc.status?.allocatedResourceStatuses?.['storage'] !== 'ControllerResizeInfeasible' ||
            pvc.status?.allocatedResources?.['storage'] !== request
          )
            await this.#request(
              'PATCH',
              resourcePath(ref, 'status'),
              {
                status: {
                  allocatedResources: { storage: request },
                  allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
                  conditions: [
                    {
                      type: 'ControllerResizeError',
                      status: 'True',
                      message: 'failed to expand pvc with: the storage has no room',
                    },
                  ],
                },
              },
              MERGE,
            );
          continue;
        }
        if (pvc.spec?.volumeName)
          await this.#request(
            'PATCH',
            resourcePath({ ...PVS, name: pvc.spec.volumeName }),
            { spec: { capacity: { storage: request } } },
            MERGE,
          );
        // As external-resizer finishes a growth: the capacity, and no resize state left.
        await this.#request(
          'PATCH',
          resourcePath(ref, 'status'),
          {
            status: {
              capacity: { storage: request },
              allocatedResourceStatuses: null,
              conditions: null,
            },
          },
          MERGE,
        );
        for (const byVolume of this.#attachments.values()) {
          const loop = byVolume.get(name)?.loop;
          if (loop) await loop.growBacking(Number(bytesOf(request)));
        }
      }
    }
    for (const vm of this.#vms.list() as HostVm[]) await this.#hotplug(vm);
  }

  async #bind(pvc: HostPvc, request: string): Promise<void> {
    const { namespace } = this.#options;
    const name = pvc.metadata?.name ?? '';
    const pvName = pvc.spec?.volumeName || `pvc-${pvc.metadata?.uid ?? name}`;
    const provisioner = await this.#provisionerOf(pvc.spec?.storageClassName);
    await this.#restoreSnapshotData(pvc);
    const accessModes = pvc.spec?.accessModes ?? ['ReadWriteMany'];
    await this.#request('POST', resourcePath(PVS), {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': provisioner } },
      spec: {
        capacity: { storage: request },
        accessModes,
        volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: pvc.spec?.storageClassName ?? '',
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace,
          name,
          uid: pvc.metadata?.uid,
        },
        csi: { driver: provisioner, volumeHandle: pvName },
      },
    }).catch((e: unknown) => {
      if (!isAlreadyExists(e)) throw e;
    });
    // Longhorn's own record of the volume (voe's webhook reads its data engine from it).
    if (provisioner === 'driver.longhorn.io')
      await this.#request('POST', resourcePath(LONGHORN_VOLUMES), {
        apiVersion: 'longhorn.io/v1beta2',
        kind: 'Volume',
        metadata: { name: pvName },
        spec: { dataEngine: 'v1', frontend: 'blockdev', size: String(bytesOf(request)) },
        status: { kubernetesStatus: { pvName, pvcName: name, namespace } },
      }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    const ref = { ...PVCS, namespace, name };
    if (!pvc.spec?.volumeName)
      await this.#request(
        'PATCH',
        resourcePath(ref),
        {
          metadata: {
            annotations: {
              'pv.kubernetes.io/bind-completed': 'yes',
              'volume.kubernetes.io/storage-provisioner': provisioner,
            },
          },
          spec: { volumeName: pvName },
        },
        MERGE,
      );
    await this.#request(
      'PATCH',
      resourcePath(ref, 'status'),
      {
        status: { phase: 'Bound', accessModes, capacity: { storage: request } },
      },
      MERGE,
    );
  }

  /**
   * Where the data kept under a Longhorn snapshot handle (`<type>://<volume>/<id>`:
   * longhornSnapshotHandle) lies: a snapshot beside its volume, a backup on the backup target
   * (under a backup volume of the source volume's name, as Longhorn's backupstore keeps one).
   */
  async #imageOf(handle: string): Promise<string | undefined> {
    const match = /^(snap|bak):\/\/([^/]+)\/([^/]+)$/.exec(handle);
    if (!match || !this.#scratch) return undefined;
    const [, type, volume, id] = match;
    const store = type === 'bak' ? 'backup-target' : 'snapshots';
    return join(await this.#scratch.directory(join(store, volume!)), `${id!}.img`);
  }

  /**
   * Longhorn's CreateSnapshot of an attached volume: its data as it is now (a sparse copy of its
   * loop device's backing file, once the page cache is written) kept under the handle: an
   * in-cluster snapshot (createCSISnapshotTypeLonghornSnapshot), or a backup of it uploaded to
   * the backup target (createCSISnapshotTypeLonghornBackup: ActionSnapshotCRCreate, then
   * ActionSnapshotBackup). Later writes to the volume are in neither.
   */
  async #keepSnapshotData(handle: string, claim: string): Promise<void> {
    const loop = this.#loopOf(claim);
    const image = await this.#imageOf(handle);
    if (!loop || !image) return;
    await sh('sync', []);
    await copySparse(loop.backingFile, image);
  }

  /** The backing file of a volume restored from a snapshot (Longhorn's replica of it), one per PVC uid. */
  async #restoredImageOf(pvc: HostPvc): Promise<string | undefined> {
    const uid = pvc.metadata?.uid;
    if (pvc.spec?.dataSource?.kind !== 'VolumeSnapshot' || !uid || !this.#scratch) return undefined;
    return join(await this.#scratch.directory('restored'), `${uid}.img`);
  }

  /**
   * Longhorn's CreateVolume from a snapshot, before the volume is bound: external-provisioner
   * passes the bound VolumeSnapshotContent's handle (getSnapshotSource); a `snap://` handle is
   * cloned from the in-cluster snapshot (the dataSource parameter), a `bak://` one restored from the
   * backup target (BackupVolume.ActionBackupGet, then the volume's fromBackup). The data lands in
   * the restored volume's backing file, which its hotplug attaches; without kept data it starts
   * blank.
   */
  async #restoreSnapshotData(pvc: HostPvc): Promise<void> {
    const restored = await this.#restoredImageOf(pvc);
    if (!restored || (await exists(restored))) return;
    const snapshot = (this.#snapshots?.list() as HostVolumeSnapshot[] | undefined)?.find(
      (s) => s.metadata?.name === pvc.spec?.dataSource?.name,
    );
    const contentName = snapshot?.status?.boundVolumeSnapshotContentName;
    if (!contentName) return;
    const content = await this.#request<HostSnapshotContent>(
      'GET',
      resourcePath({ ...VOLUME_SNAPSHOT_CONTENTS, name: contentName }),
    ).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    const handle = content?.status?.snapshotHandle ?? content?.spec?.source?.snapshotHandle;
    const image = handle ? await this.#imageOf(handle) : undefined;
    if (image && (await exists(image))) await copySparse(image, restored);
  }

  #loopOf(volume: string): LoopDevice | undefined {
    for (const byVolume of this.#attachments.values()) {
      const loop = byVolume.get(volume)?.loop;
      if (loop) return loop;
    }
    return undefined;
  }

  /** The loop device of a hotplugged volume: blank, or over the data its restore wrote, at the volume's size. */
  async #attachLoop(scratch: Scratch, pvc: HostPvc, bytes: number): Promise<LoopDevice> {
    const restored = await this.#restoredImageOf(pvc);
    if (!restored || !(await exists(restored))) return scratch.attach(bytes);
    await truncate(restored, bytes);
    return scratch.attachFile(restored);
  }

  async #hotplug(vm: HostVm): Promise<void> {
    const { namespace, deviceDirectory } = this.#options;
    const vmName = vm.metadata?.name ?? '';
    const byVolume = this.#attachments.get(vmName) ?? new Map<string, Attachment>();
    this.#attachments.set(vmName, byVolume);
    const wanted = (vm.spec?.template?.spec?.volumes ?? [])
      .filter((v) => v.persistentVolumeClaim?.hotpluggable === true)
      .map((v) => v.persistentVolumeClaim?.claimName ?? '');
    let changed = false;
    for (const volume of wanted) {
      if (byVolume.has(volume)) continue;
      const pvc = this.#pvcs.get(namespace, volume) as HostPvc | undefined;
      if (pvc?.status?.phase !== 'Bound') continue;
      const pod = `hp-volume-${volume}`.slice(0, 253);
      await this.#request('POST', resourcePath({ ...PODS, namespace }), {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, labels: { 'kubevirt.io': 'hotplug-disk' } },
        spec: {
          containers: [{ name: 'hotplug-disk', image: 'registry.invalid/virt-launcher:test' }],
          volumes: [{ name: 'hotplug', persistentVolumeClaim: { claimName: volume } }],
        },
      }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
      const attachment: Attachment = {
        volume,
        pod,
        target: `sd${String.fromCharCode(97 + (this.#targets++ % 26))}`,
      };
      if (this.#scratch) {
        attachment.loop = await this.#attachLoop(
          this.#scratch,
          pvc,
          Number(bytesOf(pvc.status?.capacity?.['storage'])),
        );
        attachment.link = join(deviceDirectory, byIdName(volume));
        await rm(attachment.link, { force: true });
        await symlink(attachment.loop.device, attachment.link);
      }
      byVolume.set(volume, attachment);
      changed = true;
    }
    for (const [volume, attachment] of byVolume) {
      if (wanted.includes(volume)) continue;
      if (attachment.link) await rm(attachment.link, { force: true });
      await attachment.loop?.detach();
      await this.#request(
        'DELETE',
        resourcePath({ ...PODS, namespace, name: attachment.pod }),
      ).catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
      byVolume.delete(volume);
      changed = true;
    }
    const vmi = await this.#request<HostVmi>(
      'GET',
      resourcePath({ ...VMIS, namespace, name: vmName }),
    ).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (!vmi) return;
    const statuses = vmi.status?.volumeStatus ?? [];
    const base = statuses.filter((s) => !s.hotplugVolume);
    const hotplugged: VolumeStatus[] = [...byVolume.values()].map((a) => ({
      name: a.volume,
      target: a.target,
      phase: 'Ready',
      reason: 'VolumeReady',
      message: 'Successfully attach hotplugged volume',
      hotplugVolume: { attachPodName: a.pod, attachPodUID: `uid-${a.pod}` },
      persistentVolumeClaimInfo: { claimName: a.volume },
    }));
    const shown = statuses
      .filter((s) => s.hotplugVolume)
      .map((s) => s.name)
      .sort()
      .join(',');
    const want = hotplugged
      .map((s) => s.name)
      .sort()
      .join(',');
    if (!changed && shown === want) return;
    await this.#request(
      'PATCH',
      resourcePath({ ...VMIS, namespace, name: vmName }, 'status'),
      {
        status: { volumeStatus: [...base, ...hotplugged] },
      },
      MERGE,
    );
  }
}
