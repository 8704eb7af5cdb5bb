import { isAlreadyExists, isNotFound, resourcePath } from '../../../src/kube/index.js';
import type {
  HostCondition,
  HostPvc,
  HostRemoteBackup,
  HostRemoteRestore,
  HostVolumeSnapshot,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import {
  VOLUME_SNAPSHOT_CONTENTS,
  VOLUME_SNAPSHOTS,
  type HostRequest,
  type HostSnapshotContent,
} from './host-snapshot-actor.js';

export const REMOTE_BACKUPS = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  plural: 'volumeremotebackups',
};
export const REMOTE_RESTORES = { ...REMOTE_BACKUPS, plural: 'volumeremoterestores' };
const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const SETTINGS = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' };
const SCS = { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses' };
const SNAPSHOT_CLASSES = { ...VOLUME_SNAPSHOTS, plural: 'volumesnapshotclasses' };
const MERGE = 'application/merge-patch+json';

// wrangler's OnRemove finalizers of Harvester's handlers (pkg/controller/master/volumeremotebackup/register.go).
const BACKUP_FINALIZER = 'wrangler.cattle.io/pvc-backup-controller';
const RESTORE_FINALIZER = 'wrangler.cattle.io/pvc-restore-controller';
// harvester pkg/volumeremotebackup/driver/driver.go and pkg/util/constants.go.
const PVC_RESTORE_REF_ANNOTATION = 'harvesterhci.io/pvcrestore-ref';
const STORAGE_CLASS_ANNOTATION = 'harvesterhci.io/storageClassName';
const STORAGE_PROVISIONER_ANNOTATION = 'harvesterhci.io/storageProvisioner';
// pkg/volumeremotebackup/common/operator.go: SetProcessing and SetReady/Finalize.
const IN_PROGRESS = 'Operation in progress';
const COMPLETE = 'Operation complete';

/** What Harvester's two handlers read, as their caches hold it. */
export interface RemoteBackupScene {
  backups: readonly HostRemoteBackup[];
  restores: readonly HostRemoteRestore[];
  snapshots: readonly HostVolumeSnapshot[];
  contents: readonly HostSnapshotContent[];
  pvcs: readonly HostPvc[];
}

interface CsiDriverInfo {
  volumeSnapshotClassName?: string;
  backupVolumeSnapshotClassName?: string;
}

function ignoreNotFound(error: unknown): undefined {
  if (!isNotFound(error)) throw error;
  return undefined;
}

function ignoreAlreadyExists(error: unknown): undefined {
  if (!isAlreadyExists(error)) throw error;
  return undefined;
}

type Finalized = { metadata?: { finalizers?: string[] } };

const finalizersOf = (object: unknown): string[] =>
  ((object as Finalized).metadata?.finalizers ?? []).slice();

/** applyConditionToStatus: the Ready condition set, its transition time kept when only the message changes. */
function withReady(
  conditions: readonly HostCondition[] | undefined,
  status: 'True' | 'False',
  message: string,
): HostCondition[] | undefined {
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === 'Ready');
  const old = at >= 0 ? list[at] : undefined;
  if (old && old.status === status && old.message === message && (old.reason ?? '') === '')
    return undefined;
  const time =
    old?.status === status && old.lastTransitionTime
      ? old.lastTransitionTime
      : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const ready: HostCondition = {
    type: 'Ready',
    status,
    message,
    reason: '',
    lastTransitionTime: time,
  };
  if (at >= 0) list[at] = ready;
  else list.push(ready);
  return list;
}

/**
 * Plays Harvester's VolumeRemoteBackup and VolumeRemoteRestore controllers
 * (harvester/harvester v1.8.0 pkg/controller/master/volumeremotebackup: remoteBackupHandler and
 * remoteRestoreHandler; their Longhorn operations in pkg/volumeremotebackup/longhorn; the status
 * writes of pkg/volumeremotebackup/common/operator.go) for one namespace, level-based, and the
 * garbage collector for what those own. Status is written on the object itself (the CRDs have no
 * status subresource; Harvester calls Update), carrying resourceVersion as an Update does.
 * - a backup: its wrangler finalizer; then readiness(): no VolumeSnapshot of its name → Create
 *   (ensureVolumeSnapshotExists: the source PVC's provisioner (GetProvisionedPVCProvisioner) maps
 *   in csi-driver-config (LoadCSIDriverConfig) to backupVolumeSnapshotClassName; the snapshot owned
 *   by the backup, annotated with the PVC's class and provisioner) and SetProcessing; a snapshot in
 *   error → SetError; ready → the bound content's handle (ensureHandleIsSet), then Finalize (Ready
 *   True, success, csiProvider, sourceSpec); deleted: Delete does nothing, the finalizer goes;
 * - a restore: its finalizer; readiness() (content, snapshot, PVC, each ready) and, when one is
 *   missing, Create: from the backup's handle a VolumeSnapshotContent (createVSC), a VolumeSnapshot
 *   of it (createVolumeSnapshot) and a PVC of the backup's sourceSpec owned by the restore
 *   (createPVCFromSnapshot), then SetProcessing; all ready → SetReady, then SetSuccess; deleted:
 *   Delete clears the content's status handle (so the backup survives the content), then deletes
 *   the snapshot, and the finalizer goes;
 * - the garbage collector (kube-controller-manager's, attemptToDeleteItem): a VolumeSnapshot or
 *   PVC whose owning backup or restore is gone is deleted.
 * Harvester moves no data itself; Longhorn does, behind the objects these handlers make, and the
 * storage and snapshot actors play it: the backup's VolumeSnapshot, on Longhorn's class of `type:
 * bak`, is cut by CreateSnapshot (createCSISnapshotTypeLonghornBackup: the volume's bytes as they
 * are then, copied to the backup target under the `bak://` handle the backup records); the
 * restore's PVC, from the pre-provisioned snapshot of that handle, is provisioned by CreateVolume
 * (the backup restored through `fromBackup`: those bytes copied into the new volume before it is
 * bound, so before the restore counts as ready).
 */
export async function reconcileRemoteBackups(
  request: HostRequest,
  namespace: string,
  scene: RemoteBackupScene,
): Promise<void> {
  for (const backup of scene.backups) await syncBackup(request, namespace, backup, scene);
  for (const restore of scene.restores) await syncRestore(request, namespace, restore, scene);
  await collectGarbage(request, namespace, scene);
}

/** The wrangler OnRemove wrapper: the finalizer on a live object; on a deleted one, `remove` then the finalizer off. */
async function finalizerStep(
  request: HostRequest,
  path: string,
  object: HostRemoteBackup | HostRemoteRestore,
  finalizer: string,
  remove: () => Promise<boolean>,
): Promise<'deleted' | 'added' | 'live'> {
  const finalizers = finalizersOf(object);
  if (object.metadata?.deletionTimestamp) {
    if (finalizers.includes(finalizer) && (await remove()))
      await request(
        'PATCH',
        path,
        {
          metadata: {
            finalizers: finalizers.filter((f) => f !== finalizer),
            resourceVersion: object.metadata.resourceVersion,
          },
        },
        MERGE,
      ).catch(ignoreNotFound);
    return 'deleted';
  }
  if (finalizers.includes(finalizer)) return 'live';
  await request(
    'PATCH',
    path,
    {
      metadata: {
        finalizers: [...finalizers, finalizer],
        resourceVersion: object.metadata?.resourceVersion,
      },
    },
    MERGE,
  );
  return 'added';
}

/** The operator's Update: the changed status written on the object, or nothing when it did not change. */
async function updateStatus(
  request: HostRequest,
  path: string,
  object: HostRemoteBackup | HostRemoteRestore,
  status: Record<string, unknown>,
): Promise<void> {
  await request(
    'PATCH',
    path,
    { metadata: { resourceVersion: object.metadata?.resourceVersion }, status },
    MERGE,
  );
}

async function setReadyCondition(
  request: HostRequest,
  path: string,
  object: HostRemoteBackup | HostRemoteRestore,
  status: 'True' | 'False',
  message: string,
): Promise<void> {
  const conditions = withReady(object.status?.conditions, status, message);
  if (conditions) await updateStatus(request, path, object, { conditions });
}

/** util.LoadCSIDriverConfig: csi-driver-config's default, with the entries of its value it lacks. */
async function csiDriverConfig(request: HostRequest): Promise<Record<string, CsiDriverInfo>> {
  const setting = await request<{ default?: string; value?: string }>(
    'GET',
    resourcePath({ ...SETTINGS, name: 'csi-driver-config' }),
  );
  const config = JSON.parse(setting.default || '{}') as Record<string, CsiDriverInfo>;
  if (setting.value)
    for (const [key, info] of Object.entries(
      JSON.parse(setting.value) as Record<string, CsiDriverInfo>,
    ))
      config[key] ??= info;
  return config;
}

/** util.GetProvisionedPVCProvisioner: the PVC's provisioner annotation, else its StorageClass's. */
async function provisionerOf(request: HostRequest, pvc: HostPvc): Promise<string> {
  const annotations = pvc.metadata?.annotations ?? {};
  const annotated =
    annotations['volume.beta.kubernetes.io/storage-provisioner'] ??
    annotations['volume.kubernetes.io/storage-provisioner'] ??
    '';
  if (annotated) return annotated;
  const className = pvc.spec?.storageClassName;
  if (!className) return '';
  const sc = await request<{ provisioner?: string }>(
    'GET',
    resourcePath({ ...SCS, name: className }),
  ).catch(ignoreNotFound);
  return sc?.provisioner ?? '';
}

async function syncBackup(
  request: HostRequest,
  namespace: string,
  backup: HostRemoteBackup,
  scene: RemoteBackupScene,
): Promise<void> {
  const name = backup.metadata?.name ?? '';
  const path = resourcePath({ ...REMOTE_BACKUPS, namespace, name });
  const step = await finalizerStep(request, path, backup, BACKUP_FINALIZER, async () => true);
  if (step !== 'live') return;
  const snapshot = scene.snapshots.find((s) => s.metadata?.name === name);
  const source = backup.spec?.source ?? '';
  const pvc = scene.pvcs.find((p) => p.metadata?.name === source);
  if (!snapshot) {
    // handleResourceNotFound → LHBackupOperation.Create → SetProcessing.
    if (!pvc) return;
    const provisioner = await provisionerOf(request, pvc);
    const className = (await csiDriverConfig(request))[provisioner]?.backupVolumeSnapshotClassName;
    if (!className) return;
    const snapshotClass = await request(
      'GET',
      resourcePath({ ...SNAPSHOT_CLASSES, name: className }),
    ).catch(ignoreNotFound);
    if (!snapshotClass) return;
    const annotations: Record<string, string> = {};
    if (pvc.spec?.storageClassName)
      annotations[STORAGE_CLASS_ANNOTATION] = pvc.spec.storageClassName;
    if (provisioner) annotations[STORAGE_PROVISIONER_ANNOTATION] = provisioner;
    await request('POST', resourcePath({ ...VOLUME_SNAPSHOTS, namespace }), {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: {
        name,
        namespace,
        annotations,
        ownerReferences: [
          {
            apiVersion: 'harvesterhci.io/v1beta1',
            kind: 'VolumeRemoteBackup',
            name,
            uid: backup.metadata?.uid,
            controller: true,
          },
        ],
      },
      spec: {
        source: { persistentVolumeClaimName: source },
        volumeSnapshotClassName: className,
      },
    }).catch(ignoreAlreadyExists);
    await setReadyCondition(request, path, backup, 'False', IN_PROGRESS);
    return;
  }
  if (snapshot.metadata?.deletionTimestamp) return;
  if (snapshot.status?.error) {
    await setReadyCondition(
      request,
      path,
      backup,
      'False',
      snapshot.status.error.message ?? 'VolumeSnapshot is in error state',
    );
    return;
  }
  if (snapshot.status?.readyToUse !== true) return;
  let current = backup;
  if (!backup.status?.handle) {
    // ensureHandleIsSet: the bound content's handle, written before the backup counts as ready.
    const contentName = snapshot.status.boundVolumeSnapshotContentName;
    const content = scene.contents.find((c) => c.metadata?.name === contentName);
    const handle = content?.status?.snapshotHandle;
    if (!handle) return;
    current = await request<HostRemoteBackup>(
      'PATCH',
      path,
      { metadata: { resourceVersion: backup.metadata?.resourceVersion }, status: { handle } },
      MERGE,
    );
  }
  // Finalize: Ready True, success, csiProvider, sourceSpec, in one Update.
  if (!pvc) return;
  const conditions = withReady(current.status?.conditions, 'True', COMPLETE);
  if (current.status?.success === true && !conditions) return;
  await updateStatus(request, path, current, {
    conditions: conditions ?? current.status?.conditions,
    success: true,
    csiProvider: await provisionerOf(request, pvc),
    sourceSpec: pvc.spec,
  });
}

/** `namespace/name` (ref.Parse, util.SplitNamespacedName), the restore's namespace when it names none. */
function backupRefOf(restore: HostRemoteRestore): { namespace: string; name: string } {
  const from = restore.spec?.from ?? '';
  const slash = from.indexOf('/');
  return slash < 0
    ? { namespace: restore.metadata?.namespace ?? '', name: from }
    : { namespace: from.slice(0, slash), name: from.slice(slash + 1) };
}

async function syncRestore(
  request: HostRequest,
  namespace: string,
  restore: HostRemoteRestore,
  scene: RemoteBackupScene,
): Promise<void> {
  const name = restore.metadata?.name ?? '';
  const path = resourcePath({ ...REMOTE_RESTORES, namespace, name });
  const content = scene.contents.find((c) => c.metadata?.name === name);
  const snapshot = scene.snapshots.find((s) => s.metadata?.name === name);
  const pvc = scene.pvcs.find((p) => p.metadata?.name === name);
  const step = await finalizerStep(request, path, restore, RESTORE_FINALIZER, () =>
    deleteRestoreResources(request, namespace, content, snapshot),
  );
  if (step !== 'live') return;
  if (!content || !snapshot || !pvc) {
    await createRestoreResources(request, namespace, restore, scene, { content, snapshot });
    return;
  }
  // readiness: the content, then the snapshot, then the PVC.
  const failure = content.status?.error
    ? (content.status.error.message ?? 'VolumeSnapshotContent is in error state')
    : snapshot.status?.error
      ? (snapshot.status.error.message ?? 'VolumeSnapshot is in error state')
      : undefined;
  if (failure !== undefined) {
    await setReadyCondition(request, path, restore, 'False', failure);
    return;
  }
  if (content.metadata?.deletionTimestamp || content.status?.readyToUse !== true) return;
  if (snapshot.metadata?.deletionTimestamp || snapshot.status?.readyToUse !== true) return;
  if (pvc.metadata?.deletionTimestamp) return;
  const sc = pvc.spec?.storageClassName
    ? await request<{ volumeBindingMode?: string }>(
        'GET',
        resourcePath({ ...SCS, name: pvc.spec.storageClassName }),
      ).catch(ignoreNotFound)
    : undefined;
  if (sc?.volumeBindingMode !== 'WaitForFirstConsumer' && pvc.status?.phase !== 'Bound') return;
  // handleReadyRestore: SetReady, then SetSuccess.
  let current = restore;
  const conditions = withReady(restore.status?.conditions, 'True', COMPLETE);
  if (conditions)
    current = await request<HostRemoteRestore>(
      'PATCH',
      path,
      { metadata: { resourceVersion: restore.metadata?.resourceVersion }, status: { conditions } },
      MERGE,
    );
  if (current.status?.success !== true)
    await updateStatus(request, path, current, { success: true });
}

/** LHRestoreOperation.Create (createOrGet of the content, the snapshot and the PVC), then SetProcessing. */
async function createRestoreResources(
  request: HostRequest,
  namespace: string,
  restore: HostRemoteRestore,
  scene: RemoteBackupScene,
  existing: { content?: HostSnapshotContent; snapshot?: HostVolumeSnapshot },
): Promise<void> {
  const name = restore.metadata?.name ?? '';
  const ref = backupRefOf(restore);
  const backup =
    ref.namespace === namespace
      ? scene.backups.find((b) => b.metadata?.name === ref.name)
      : await request<HostRemoteBackup>(
          'GET',
          resourcePath({ ...REMOTE_BACKUPS, namespace: ref.namespace, name: ref.name }),
        ).catch(ignoreNotFound);
  // getSourceRemoteBackup: the backup must have its handle.
  const handle = backup?.status?.handle;
  if (!backup || !handle) return;
  const className = (await csiDriverConfig(request))[backup.status?.csiProvider ?? '']
    ?.volumeSnapshotClassName;
  if (!className) return;
  const snapshotClass = await request<{ driver?: string }>(
    'GET',
    resourcePath({ ...SNAPSHOT_CLASSES, name: className }),
  ).catch(ignoreNotFound);
  if (!snapshotClass) return;
  const restoreRef = { [PVC_RESTORE_REF_ANNOTATION]: `${namespace}/${name}` };
  if (!existing.content)
    await request('POST', resourcePath(VOLUME_SNAPSHOT_CONTENTS), {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotContent',
      metadata: { name, annotations: restoreRef },
      spec: {
        deletionPolicy: 'Delete',
        driver: snapshotClass.driver,
        source: { snapshotHandle: handle },
        volumeSnapshotRef: { name, namespace },
        volumeSnapshotClassName: className,
      },
    }).catch(ignoreAlreadyExists);
  if (!existing.snapshot)
    await request('POST', resourcePath({ ...VOLUME_SNAPSHOTS, namespace }), {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name, namespace, annotations: restoreRef },
      spec: { source: { volumeSnapshotContentName: name }, volumeSnapshotClassName: className },
    }).catch(ignoreAlreadyExists);
  const sourceSpec = backup.status?.sourceSpec ?? {};
  await request('POST', resourcePath({ ...PVCS, namespace }), {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace,
      annotations: {},
      ownerReferences: [
        {
          apiVersion: 'harvesterhci.io/v1beta1',
          kind: 'VolumeRemoteRestore',
          name,
          uid: restore.metadata?.uid,
          controller: true,
        },
      ],
    },
    spec: {
      accessModes: sourceSpec.accessModes,
      resources: sourceSpec.resources,
      storageClassName: sourceSpec.storageClassName,
      volumeMode: sourceSpec.volumeMode,
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name },
    },
  }).catch(ignoreAlreadyExists);
  const path = resourcePath({ ...REMOTE_RESTORES, namespace, name });
  await setReadyCondition(request, path, restore, 'False', IN_PROGRESS);
}

/**
 * LHRestoreOperation.Delete: a content with a status handle loses it (Longhorn would delete the
 * backup with the content) and the step ends (ErrRetryLater); else the snapshot is deleted and the
 * finalizer may go.
 */
async function deleteRestoreResources(
  request: HostRequest,
  namespace: string,
  content: HostSnapshotContent | undefined,
  snapshot: HostVolumeSnapshot | undefined,
): Promise<boolean> {
  if (content?.status?.snapshotHandle) {
    await request(
      'PATCH',
      resourcePath({ ...VOLUME_SNAPSHOT_CONTENTS, name: content.metadata?.name ?? '' }, 'status'),
      { status: { snapshotHandle: null } },
      MERGE,
    );
    return false;
  }
  if (snapshot)
    await request(
      'DELETE',
      resourcePath({ ...VOLUME_SNAPSHOTS, namespace, name: snapshot.metadata?.name ?? '' }),
    ).catch(ignoreNotFound);
  return true;
}

/** The garbage collector's attemptToDeleteItem for dependents of backups and restores that are gone (background propagation). */
async function collectGarbage(
  request: HostRequest,
  namespace: string,
  scene: RemoteBackupScene,
): Promise<void> {
  const owners = new Set(
    [...scene.backups, ...scene.restores].map((o) => o.metadata?.uid).filter(Boolean),
  );
  const orphaned = (object: HostVolumeSnapshot | HostPvc, kind: string): boolean => {
    const refs = (object.metadata?.ownerReferences ?? []).filter((o) => o.kind === kind);
    return (
      refs.length > 0 &&
      !object.metadata?.deletionTimestamp &&
      refs.every((o) => !owners.has(o.uid))
    );
  };
  for (const snapshot of scene.snapshots)
    if (orphaned(snapshot, 'VolumeRemoteBackup'))
      await request(
        'DELETE',
        resourcePath({ ...VOLUME_SNAPSHOTS, namespace, name: snapshot.metadata?.name ?? '' }),
      ).catch(ignoreNotFound);
  for (const pvc of scene.pvcs)
    if (orphaned(pvc, 'VolumeRemoteRestore'))
      await request(
        'DELETE',
        resourcePath({ ...PVCS, namespace, name: pvc.metadata?.name ?? '' }),
      ).catch(ignoreNotFound);
}
