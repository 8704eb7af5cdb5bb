import { isNotFound, parseQuantityCeil, resourcePath } from '../../../src/kube/index.js';
import type {
  HostPvc,
  HostVolumeSnapshot,
} from '../../../src/guest-csi-bridge/host/host-objects.js';

export const VOLUME_SNAPSHOTS = {
  group: 'snapshot.storage.k8s.io',
  version: 'v1',
  plural: 'volumesnapshots',
};
export const VOLUME_SNAPSHOT_CONTENTS = { ...VOLUME_SNAPSHOTS, plural: 'volumesnapshotcontents' };
const VOLUME_SNAPSHOT_CLASSES = { ...VOLUME_SNAPSHOTS, plural: 'volumesnapshotclasses' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const MERGE = 'application/merge-patch+json';

// external-snapshotter's finalizers and annotation (pkg/utils/util.go).
const SNAPSHOT_AS_SOURCE_FINALIZER =
  'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection';
const SNAPSHOT_BOUND_FINALIZER = 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection';
const CONTENT_FINALIZER = 'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection';
const PVC_FINALIZER = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
const BEING_DELETED_ANNOTATION = 'snapshot.storage.kubernetes.io/volumesnapshot-being-deleted';

export interface HostSnapshotContent {
  metadata?: {
    name?: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  spec?: {
    deletionPolicy?: string;
    driver?: string;
    source?: { volumeHandle?: string; snapshotHandle?: string };
    volumeSnapshotRef?: { name?: string; namespace?: string; uid?: string };
    volumeSnapshotClassName?: string;
  };
  status?: {
    snapshotHandle?: string;
    readyToUse?: boolean;
    restoreSize?: number;
    creationTime?: number;
    error?: { message?: string };
  };
}

interface SnapshotClass {
  driver?: string;
  deletionPolicy?: string;
  parameters?: Record<string, string>;
}

/**
 * Keeps the data of the source PVC `claim` under the snapshot handle `handle` (Longhorn's CSI
 * CreateSnapshot: an in-cluster snapshot of the volume, or a backup of it on the backup target).
 */
export type SnapshotCutter = (handle: string, claim: string) => Promise<void>;

/**
 * The handle Longhorn's CreateSnapshot (longhorn-manager csi/controller_server.go) answers for
 * the VolumeSnapshotClass parameter `type`, named by encodeSnapshotID `<type>://<volume>/<id>`:
 * `snap` (createCSISnapshotTypeLonghornSnapshot) an in-cluster snapshot named as the CSI snapshot
 * (csi-snapshotter's `snapshot-<VolumeSnapshot uid>`); `bak`, the deprecated `bs`, or none
 * (createCSISnapshotTypeLonghornBackup) a backup on the backup target, whose name Longhorn
 * generates (`backup-<id>`; the VolumeSnapshot's uid stands for the id here).
 */
export function longhornSnapshotHandle(
  type: string | undefined,
  volume: string,
  snapshotUid: string,
): string {
  if (type === 'snap') return `snap://${volume}/snapshot-${snapshotUid}`;
  return `bak://${volume}/backup-${snapshotUid.replace(/-/g, '').slice(0, 16)}`;
}

/** The requests the actor sends (the storage actor's, as cluster admin). */
export type HostRequest = <T = unknown>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  contentType?: string,
) => Promise<T>;

function ignoreNotFound(error: unknown): undefined {
  if (!isNotFound(error)) throw error;
  return undefined;
}

/** external-snapshotter's GetDynamicSnapshotContentNameForSnapshot: `snapcontent-<snapshot uid>`. */
export function contentNameOf(snapshot: HostVolumeSnapshot): string {
  return `snapcontent-${snapshot.metadata?.uid ?? ''}`;
}

/**
 * Plays the host's snapshot-controller (external-snapshotter pkg/common-controller) and the host
 * CSI driver's csi-snapshotter sidecar (pkg/sidecar-controller) with Longhorn behind it, for the
 * VolumeSnapshots of one namespace, level-based, writing what they write in their order:
 * - a new snapshot (syncSnapshot, checkandAddSnapshotFinalizers): its two finalizers; then
 *   createSnapshotWrapper: the source PVC's pvc-as-source finalizer (ensurePVCFinalizer), the
 *   VolumeSnapshotContent `snapcontent-<uid>` of the class's driver and deletionPolicy with the
 *   content finalizer, and the snapshot's status bound to it, not ready (updateSnapshotStatus);
 *   a class that does not exist is the snapshot's status.error instead;
 * - the sidecar's syncContent → createSnapshotWrapper: the CSI snapshot is cut (Longhorn answers
 *   the volume's size as size_bytes) and updateSnapshotContentStatus writes handle, creation time
 *   (ns), readyToUse and restoreSize (bytes);
 * - the controller's updateSnapshotStatus from the ready content: creationTime, readyToUse,
 *   restoreSize on the snapshot; then the PVC finalizer removed (checkandRemovePVCFinalizer);
 * - a deleted snapshot (processSnapshotWithDeletionTimestamp): a Delete-policy content annotated
 *   being-deleted and deleted, then the snapshot's finalizers removed; the sidecar's
 *   deleteCSISnapshot then removes the content's finalizer.
 * `cut` keeps the source's data under the handle (the storage actor copies a hotplugged volume's
 * loop device: beside the volume for a Longhorn snapshot, to the backup target for a backup), so
 * a volume restored from the snapshot, or from a pre-provisioned one of the same handle, starts
 * with it.
 */
export async function reconcileHostSnapshots(
  request: HostRequest,
  namespace: string,
  snapshots: readonly HostVolumeSnapshot[],
  contents: readonly HostSnapshotContent[],
  cut: SnapshotCutter = async () => undefined,
): Promise<void> {
  const byName = new Map(contents.map((c) => [c.metadata?.name ?? '', c]));
  for (const snapshot of snapshots) {
    const preProvisioned = snapshot.spec?.source?.volumeSnapshotContentName;
    const content = byName.get(preProvisioned ?? contentNameOf(snapshot));
    if (snapshot.metadata?.deletionTimestamp)
      await deleteSnapshot(request, namespace, snapshot, content);
    else if (preProvisioned)
      await syncPreProvisioned(request, namespace, snapshot, content, contents);
    else await syncSnapshot(request, namespace, snapshot, content, cut);
  }
  for (const content of contents)
    if (content.metadata?.deletionTimestamp && content.metadata.finalizers?.length)
      // The sidecar's deleteCSISnapshot, then removeContentFinalizer.
      await request(
        'PATCH',
        resourcePath({ ...VOLUME_SNAPSHOT_CONTENTS, name: content.metadata.name ?? '' }),
        { metadata: { finalizers: null } },
        MERGE,
      ).catch(ignoreNotFound);
}

/** checkandAddSnapshotFinalizers (both at once); true when it wrote them. */
async function addSnapshotFinalizers(
  request: HostRequest,
  namespace: string,
  snapshot: HostVolumeSnapshot,
): Promise<boolean> {
  const finalizers = (snapshot.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  if (finalizers.includes(SNAPSHOT_BOUND_FINALIZER)) return false;
  await request(
    'PATCH',
    resourcePath({ ...VOLUME_SNAPSHOTS, namespace, name: snapshot.metadata?.name ?? '' }),
    {
      metadata: {
        finalizers: [...finalizers, SNAPSHOT_AS_SOURCE_FINALIZER, SNAPSHOT_BOUND_FINALIZER],
        resourceVersion: snapshot.metadata?.resourceVersion,
      },
    },
    MERGE,
  );
  return true;
}

/** external-snapshotter's contentIsReady: the content's status says readyToUse. */
function contentIsReady(content: HostSnapshotContent): boolean {
  return content.status?.readyToUse === true;
}

/**
 * A pre-provisioned snapshot (spec.source.volumeSnapshotContentName, as Harvester's restore makes
 * one from a backup's handle), in the order the two controllers write:
 * - its finalizers (checkandAddSnapshotFinalizers), as a dynamic one's;
 * - snapshot-controller's syncUnreadySnapshot: a content that is not there is the snapshot's
 *   status error (SnapshotContentMissing); else checkandBindSnapshotContent writes the
 *   snapshot's uid and class into the content's volumeSnapshotRef;
 * - csi-snapshotter's syncContent → checkandUpdateContentStatusOperation for a content not ready
 *   yet (contentIsReady): the storage's GetSnapshotStatus (Longhorn answers a backup ready, of the
 *   size of the snapshot the handle was cut as) and updateSnapshotContentStatus;
 * - snapshot-controller's updateSnapshotStatus from the ready content.
 */
async function syncPreProvisioned(
  request: HostRequest,
  namespace: string,
  snapshot: HostVolumeSnapshot,
  content: HostSnapshotContent | undefined,
  contents: readonly HostSnapshotContent[],
): Promise<void> {
  const name = snapshot.metadata?.name ?? '';
  const ref = { ...VOLUME_SNAPSHOTS, namespace, name };
  if (await addSnapshotFinalizers(request, namespace, snapshot)) return;
  if (!content) {
    if (snapshot.status?.error) return;
    await request(
      'PATCH',
      resourcePath(ref, 'status'),
      {
        status: {
          readyToUse: false,
          error: { message: 'VolumeSnapshotContent is missing', time: new Date().toISOString() },
        },
      },
      MERGE,
    );
    return;
  }
  const contentRef = { ...VOLUME_SNAPSHOT_CONTENTS, name: content.metadata?.name ?? '' };
  if (!content.spec?.volumeSnapshotRef?.uid) {
    await request(
      'PATCH',
      resourcePath(contentRef),
      [
        { op: 'replace', path: '/spec/volumeSnapshotRef/uid', value: snapshot.metadata?.uid },
        ...(snapshot.spec?.volumeSnapshotClassName
          ? [
              {
                op: 'replace',
                path: '/spec/volumeSnapshotClassName',
                value: snapshot.spec.volumeSnapshotClassName,
              },
            ]
          : []),
      ],
      'application/json-patch+json',
    );
    return;
  }
  const handle = content.spec.source?.snapshotHandle;
  if (!contentIsReady(content)) {
    const cutAs = contents.find((c) => c !== content && c.status?.snapshotHandle === handle);
    await request(
      'PATCH',
      resourcePath(contentRef, 'status'),
      {
        status: {
          snapshotHandle: handle,
          creationTime: cutAs?.status?.creationTime ?? Date.now() * 1_000_000,
          readyToUse: true,
          restoreSize: cutAs?.status?.restoreSize ?? 0,
        },
      },
      MERGE,
    );
    return;
  }
  if (snapshot.status?.readyToUse === true) return;
  await request(
    'PATCH',
    resourcePath(ref, 'status'),
    {
      status: {
        boundVolumeSnapshotContentName: content.metadata?.name,
        creationTime: new Date(Math.floor((content.status?.creationTime ?? 0) / 1_000_000))
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
        readyToUse: true,
        restoreSize: String(content.status?.restoreSize ?? 0),
      },
    },
    MERGE,
  );
}

async function syncSnapshot(
  request: HostRequest,
  namespace: string,
  snapshot: HostVolumeSnapshot,
  content: HostSnapshotContent | undefined,
  cut: SnapshotCutter,
): Promise<void> {
  const name = snapshot.metadata?.name ?? '';
  const ref = { ...VOLUME_SNAPSHOTS, namespace, name };
  if (await addSnapshotFinalizers(request, namespace, snapshot)) return;
  const claim = snapshot.spec?.source?.persistentVolumeClaimName ?? '';
  const pvcRef = { ...PVCS, namespace, name: claim };
  if (!content) {
    if (snapshot.status?.error) return;
    const className = snapshot.spec?.volumeSnapshotClassName ?? '';
    const snapshotClass = await request<SnapshotClass>(
      'GET',
      resourcePath({ ...VOLUME_SNAPSHOT_CLASSES, name: className }),
    ).catch(ignoreNotFound);
    const pvc = await request<HostPvc>('GET', resourcePath(pvcRef)).catch(ignoreNotFound);
    if (!snapshotClass || !pvc?.spec?.volumeName) {
      await request(
        'PATCH',
        resourcePath(ref, 'status'),
        {
          status: {
            readyToUse: false,
            error: {
              message: snapshotClass
                ? `failed to take snapshot: the source PVC ${claim} is not bound`
                : `failed to get input parameters to create snapshot ${name}: volumesnapshotclass.snapshot.storage.k8s.io "${className}" not found`,
              time: new Date().toISOString(),
            },
          },
        },
        MERGE,
      );
      return;
    }
    const pvcFinalizers = (pvc.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? [];
    if (!pvcFinalizers.includes(PVC_FINALIZER))
      await request(
        'PATCH',
        resourcePath(pvcRef),
        { metadata: { finalizers: [...pvcFinalizers, PVC_FINALIZER] } },
        MERGE,
      );
    const pv = await request<{ spec?: { csi?: { volumeHandle?: string } } }>(
      'GET',
      resourcePath({ ...PVS, name: pvc.spec.volumeName }),
    );
    await request('POST', resourcePath(VOLUME_SNAPSHOT_CONTENTS), {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotContent',
      metadata: { name: contentNameOf(snapshot), finalizers: [CONTENT_FINALIZER] },
      spec: {
        volumeSnapshotRef: {
          apiVersion: 'snapshot.storage.k8s.io/v1',
          kind: 'VolumeSnapshot',
          namespace,
          name,
          uid: snapshot.metadata?.uid,
        },
        source: { volumeHandle: pv.spec?.csi?.volumeHandle ?? pvc.spec.volumeName },
        sourceVolumeMode: pvc.spec.volumeMode ?? 'Filesystem',
        volumeSnapshotClassName: className,
        deletionPolicy: snapshotClass.deletionPolicy ?? 'Delete',
        driver: snapshotClass.driver ?? '',
      },
    });
    await request(
      'PATCH',
      resourcePath(ref, 'status'),
      { status: { boundVolumeSnapshotContentName: contentNameOf(snapshot), readyToUse: false } },
      MERGE,
    );
    return;
  }
  if (!content.status?.snapshotHandle) {
    // The sidecar's CreateSnapshot with the class's parameters: Longhorn keeps the volume's data
    // under the handle of the class's type and answers the volume's size (the PVC's capacity).
    const pvc = await request<HostPvc>('GET', resourcePath(pvcRef)).catch(ignoreNotFound);
    const size = parseQuantityCeil(pvc?.status?.capacity?.['storage'] ?? '0');
    const snapshotClass = await request<SnapshotClass>(
      'GET',
      resourcePath({
        ...VOLUME_SNAPSHOT_CLASSES,
        name: content.spec?.volumeSnapshotClassName ?? '',
      }),
    ).catch(ignoreNotFound);
    const handle = longhornSnapshotHandle(
      snapshotClass?.parameters?.['type'],
      pvc?.spec?.volumeName ?? claim,
      snapshot.metadata?.uid ?? '',
    );
    await cut(handle, claim);
    await request(
      'PATCH',
      resourcePath({ ...VOLUME_SNAPSHOT_CONTENTS, name: content.metadata?.name ?? '' }, 'status'),
      {
        status: {
          snapshotHandle: handle,
          creationTime: Date.now() * 1_000_000,
          readyToUse: true,
          restoreSize: Number(size),
        },
      },
      MERGE,
    );
    return;
  }
  if (snapshot.status?.readyToUse === true) return;
  await request(
    'PATCH',
    resourcePath(ref, 'status'),
    {
      status: {
        boundVolumeSnapshotContentName: content.metadata?.name,
        creationTime: new Date(Math.floor((content.status.creationTime ?? 0) / 1_000_000))
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
        readyToUse: content.status.readyToUse === true,
        restoreSize: String(content.status.restoreSize ?? 0),
      },
    },
    MERGE,
  );
  const pvc = await request<HostPvc>('GET', resourcePath(pvcRef)).catch(ignoreNotFound);
  const pvcFinalizers = (pvc?.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  if (pvcFinalizers.includes(PVC_FINALIZER))
    await request(
      'PATCH',
      resourcePath(pvcRef),
      { metadata: { finalizers: pvcFinalizers.filter((f) => f !== PVC_FINALIZER) } },
      MERGE,
    ).catch(ignoreNotFound);
}

async function deleteSnapshot(
  request: HostRequest,
  namespace: string,
  snapshot: HostVolumeSnapshot,
  content: HostSnapshotContent | undefined,
): Promise<void> {
  const name = snapshot.metadata?.name ?? '';
  if (
    content &&
    !content.metadata?.deletionTimestamp &&
    content.spec?.deletionPolicy !== 'Retain'
  ) {
    const contentRef = { ...VOLUME_SNAPSHOT_CONTENTS, name: content.metadata?.name ?? '' };
    await request(
      'PATCH',
      resourcePath(contentRef),
      { metadata: { annotations: { [BEING_DELETED_ANNOTATION]: 'yes' } } },
      MERGE,
    ).catch(ignoreNotFound);
    await request('DELETE', resourcePath(contentRef)).catch(ignoreNotFound);
  }
  const finalizers = (snapshot.metadata as { finalizers?: string[] } | undefined)?.finalizers ?? [];
  if (finalizers.length > 0)
    await request(
      'PATCH',
      resourcePath({ ...VOLUME_SNAPSHOTS, namespace, name }),
      { metadata: { finalizers: null } },
      MERGE,
    ).catch(ignoreNotFound);
}

/**
 * Whether external-provisioner would provision `pvc` now (getSnapshotSource): a PVC restored from
 * a VolumeSnapshot waits until that snapshot is bound and ready, and its request must cover the
 * snapshot's restoreSize. A PVC of no snapshot is provisioned at once.
 */
export function restoreReady(pvc: HostPvc, snapshots: readonly HostVolumeSnapshot[]): boolean {
  const source = pvc.spec?.dataSource;
  if (source?.kind !== 'VolumeSnapshot') return true;
  const snapshot = snapshots.find((s) => s.metadata?.name === source.name);
  if (!snapshot?.status?.readyToUse || !snapshot.status.boundVolumeSnapshotContentName)
    return false;
  const request = parseQuantityCeil(pvc.spec?.resources?.requests?.['storage'] ?? '0');
  return request >= parseQuantityCeil(snapshot.status.restoreSize ?? '0');
}
