import type { HostPvc, HostVmi, HostVolumeAttachment } from '../host/host-objects.js';

/**
 * Where the host attachment of a volume stands against the host node its guest node VM runs on:
 * - `unchecked`: not a Block host PVC, or not bound to a PV yet: nothing to wait for;
 * - `settled`: no host VolumeAttachment of its PV names another host node;
 * - `elsewhere`: some do (`nodes`, sorted), e.g. while KubeVirt live-migrates a VM that has it
 *   (the target node's attachment before the handoff, the source node's until it is detached).
 */
export type HostAttachment =
  | { state: 'unchecked' }
  | { state: 'settled' }
  | { state: 'elsewhere'; pv: string; vmiNode: string; nodes: string[] };

/**
 * Whether the host PVC needs the attachment check at all: only a Block PVC bound to a PV
 * (harvester-csi-driver pkg/csi/controller_server.go waitForVASettled skips Filesystem PVCs and
 * those whose volumeMode is unset).
 */
export function needsAttachmentCheck(pvc: HostPvc): boolean {
  return pvc.spec?.volumeMode === 'Block' && Boolean(pvc.spec.volumeName);
}

/**
 * Judges the host VolumeAttachments of the PVC's PV against the VMI's `status.nodeName`, as
 * harvester-csi-driver's checkHostVA (pkg/csi/controller_server.go) does: any attachment of that
 * PV whose `spec.nodeName` differs from the VMI's node (whatever its attacher, attached or being
 * detached) means the volume is not settled there. A VMI that does not exist or has no node yet
 * counts as running nowhere: any attachment is elsewhere. Pure.
 */
export function hostAttachmentOf(
  pvc: HostPvc,
  vmi: HostVmi | undefined,
  attachments: readonly HostVolumeAttachment[],
): HostAttachment {
  if (!needsAttachmentCheck(pvc)) return { state: 'unchecked' };
  const pv = pvc.spec?.volumeName ?? '';
  const vmiNode = vmi?.status?.nodeName ?? '';
  const nodes = new Set<string>();
  for (const attachment of attachments) {
    if (attachment.spec?.source?.persistentVolumeName !== pv) continue;
    const node = attachment.spec.nodeName ?? '';
    if (node !== vmiNode) nodes.add(node);
  }
  if (nodes.size === 0) return { state: 'settled' };
  return { state: 'elsewhere', pv, vmiNode, nodes: [...nodes].sort() };
}

/** Says why a volume waits: its host attachments, the VMI's node and a migration in progress, if any. Pure. */
export function describeAttachmentElsewhere(
  volume: string,
  vmiKey: string,
  vmi: HostVmi | undefined,
  attachment: Extract<HostAttachment, { state: 'elsewhere' }>,
): string {
  const where = attachment.vmiNode
    ? `another host node than ${attachment.vmiNode}, where VirtualMachineInstance ${vmiKey} runs`
    : `while VirtualMachineInstance ${vmiKey} runs on no host node`;
  const migration = vmi?.status?.migrationState;
  const migrating =
    migration && !migration.completed && !migration.endTimestamp
      ? ` (a live migration from ${migration.sourceNode ?? '?'} to ${migration.targetNode ?? '?'} is in progress)`
      : '';
  return `volume ${volume} (host PV ${attachment.pv}) has a host VolumeAttachment on ${attachment.nodes.join(', ')}, ${where}${migrating}; retry once the host has settled it`;
}
