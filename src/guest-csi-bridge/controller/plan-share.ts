import type { HostNetworkFilesystem, HostPvc } from '../host/host-objects.js';

/**
 * The provisioner Harvester's driver writes in the NetworkFilesystems it makes (harvester-csi-driver
 * pkg/csi/util.go `LHName`, used by createNetworkFilesystem in pkg/csi/controller_server.go).
 */
export const SHARE_PROVISIONER = 'Longhorn';
/** The annotation on a NetworkFilesystem that lists the guest nodes the share is published to (sorted, comma-separated). */
export const SHARE_NODES_ANNOTATION = 'voe.harvesterhci.io/csi-published-nodes';
/** The mount options of a share whose NetworkFilesystem recommends none (Harvester's driver: NFSv4). */
export const DEFAULT_SHARE_MOUNT_OPTIONS = 'vers=4';

/**
 * The NetworkFilesystem of a shared volume's Longhorn volume (the host PV `pvName`), disabled,
 * as Harvester's driver makes it (createNetworkFilesystem). Pure.
 */
export function networkFilesystemFor(pvName: string): HostNetworkFilesystem {
  return {
    metadata: { name: pvName, namespace: 'harvester-system' },
    spec: { networkFSName: pvName, desiredState: 'Disabled', provisioner: SHARE_PROVISIONER },
  };
}

/** The guest nodes a share is published to, from its annotation. Pure. */
export function publishedNodesOf(share: HostNetworkFilesystem | undefined): string[] {
  const listed = share?.metadata?.annotations?.[SHARE_NODES_ANNOTATION] ?? '';
  return listed.split(',').filter((node) => node !== '');
}

/** A merge patch of a NetworkFilesystem's published nodes (null removes the annotation) and desired state. */
export interface SharePatch {
  metadata: { resourceVersion: string; annotations: Record<string, string | null> };
  spec?: { desiredState: 'Enabled' | 'Disabled' };
}

/**
 * The merge patch that publishes the share to `node` (its name added to the published nodes,
 * spec.desiredState Enabled, as Harvester's publishRWXVolume asks networkfs-manager), guarded by
 * the resourceVersion read; undefined when there is nothing to change. Pure.
 */
export function sharePublishPatch(
  share: HostNetworkFilesystem,
  node: string,
): SharePatch | undefined {
  const nodes = publishedNodesOf(share);
  const enabled = share.spec?.desiredState === 'Enabled';
  if (enabled && nodes.includes(node)) return undefined;
  const listed = [...new Set([...nodes, node])].sort().join(',');
  return {
    metadata: {
      resourceVersion: share.metadata?.resourceVersion ?? '',
      annotations: { [SHARE_NODES_ANNOTATION]: listed },
    },
    ...(enabled ? {} : { spec: { desiredState: 'Enabled' } }),
  };
}

/**
 * The merge patch that unpublishes the share from `node` (from every node when `node` is
 * empty): its name taken off the published nodes, and, when no node is left, spec.desiredState
 * Disabled (networkfs-manager stops the export, as Harvester's unpublishRWXVolume asks once no
 * guest pod uses the volume). Undefined when there is nothing to change. Pure.
 */
export function shareUnpublishPatch(
  share: HostNetworkFilesystem,
  node: string,
): SharePatch | undefined {
  const nodes = publishedNodesOf(share);
  if (node !== '' && !nodes.includes(node)) return undefined;
  const left = node === '' ? [] : nodes.filter((listed) => listed !== node);
  const disable = left.length === 0 && share.spec?.desiredState !== 'Disabled';
  if (left.length === nodes.length && !disable) return undefined;
  return {
    metadata: {
      resourceVersion: share.metadata?.resourceVersion ?? '',
      annotations: { [SHARE_NODES_ANNOTATION]: left.length > 0 ? left.join(',') : null },
    },
    ...(disable ? { spec: { desiredState: 'Disabled' } } : {}),
  };
}

/** Whether networkfs-manager reports the share exported: endpoint Ready with an address (as Harvester's NodeStage requires). Pure. */
export function shareReady(share: HostNetworkFilesystem | undefined): boolean {
  return share?.status?.status === 'Ready' && !!share.status.endpoint;
}

/**
 * The NFS mount of a ready share: `<endpoint>:/<Longhorn volume>` (the share manager exports each
 * volume at its name) with the NetworkFilesystem's mount options, else NFSv4, as Harvester's
 * nodeStageRWXVolume (pkg/csi/node_server.go) mounts it. Pure.
 */
export function shareMount(
  share: HostNetworkFilesystem,
  pvName: string,
): { source: string; options: string[] } {
  const options = share.status?.mountOpts || DEFAULT_SHARE_MOUNT_OPTIONS;
  return {
    source: `${share.status?.endpoint ?? ''}:/${pvName}`,
    options: options.split(',').filter((option) => option !== ''),
  };
}

/** The publish_context keys that carry a ready share's NFS mount to NodeStageVolume. */
export const SHARE_SOURCE_KEY = 'shareSource';
export const SHARE_OPTIONS_KEY = 'shareMountOptions';

/** The publish_context of a ready share: its NFS export and mount options (comma-separated). Pure. */
export function sharePublishContext(
  share: HostNetworkFilesystem,
  pvName: string,
): Record<string, string> {
  const { source, options } = shareMount(share, pvName);
  return { [SHARE_SOURCE_KEY]: source, [SHARE_OPTIONS_KEY]: options.join(',') };
}

/** The NFS mount a publish_context carries, or undefined when it carries none (a volume Harvester's driver published). Pure. */
export function shareMountFromContext(
  context: Record<string, string> | null | undefined,
): { source: string; options: string[] } | undefined {
  const source = context?.[SHARE_SOURCE_KEY];
  if (!source) return undefined;
  const options = (context?.[SHARE_OPTIONS_KEY] ?? '').split(',').filter((o) => o !== '');
  return { source, options: options.length > 0 ? options : [DEFAULT_SHARE_MOUNT_OPTIONS] };
}

/** Whether the host PVC can back a share: Filesystem mode, ReadWriteMany, bound to a PV. Pure. */
export function isShareablePvc(pvc: HostPvc | undefined): boolean {
  return (
    pvc?.spec?.volumeMode === 'Filesystem' &&
    (pvc.spec.accessModes ?? []).includes('ReadWriteMany') &&
    !!pvc.spec.volumeName
  );
}
