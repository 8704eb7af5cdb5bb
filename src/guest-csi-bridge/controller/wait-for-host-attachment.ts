import { waitUntil } from '../../wait/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';
import type { HostPvc, HostVmi } from '../host/host-objects.js';
import { withWaitSignal, type CallContext } from '../server/call-context.js';
import {
  describeAttachmentElsewhere,
  hostAttachmentOf,
  needsAttachmentCheck,
  type HostAttachment,
} from './host-attachment-elsewhere.js';

/**
 * How often the host's VolumeAttachments and the VMI are read again while the volume is attached
 * elsewhere: harvester-csi-driver's genericTickTime (pkg/csi/controller_server.go). Both objects
 * decide together, and the attachments are cluster-wide, so this wait polls where the driver's
 * other waits watch one object.
 */
export const ATTACHMENT_POLL_MS = 2_000;

/** A 403 on the VolumeAttachments: credentials without the permission (Harvester's older csi-driver role). */
function forbidden(error: unknown): boolean {
  return error instanceof CsiError && error.details['httpStatus'] === 403;
}

/**
 * For a Block host PVC bound to a PV: waits until no host VolumeAttachment of that PV names
 * another host node than the one the guest node's VMI runs on (a live migration of the VM, or a
 * detach from another host node, still in progress), reading both every ATTACHMENT_POLL_MS, for
 * at most `ms` and never past the call's deadline; then ABORTED (CSI_HOST_ATTACHMENT_ELSEWHERE)
 * with what it saw, and the attacher retries. As harvester-csi-driver's waitForVASettled: other
 * PVCs are not checked, and host credentials that may not list VolumeAttachments (403) skip the
 * check, logged.
 */
export async function waitForHostAttachment(
  host: HostApi,
  volumeId: string,
  node: string,
  pvc: HostPvc,
  ctx: CallContext,
  ms: number,
): Promise<void> {
  if (!needsAttachmentCheck(pvc)) return;
  const vmiKey = `${host.namespace}/${node}`;
  let last: { vmi: HostVmi | undefined; attachment: HostAttachment } | undefined;
  let skipped = false;
  const settled = async (): Promise<boolean> => {
    const [attachments, vmi] = await Promise.all([
      host.listVolumeAttachments().catch((error: unknown) => {
        if (!forbidden(error)) throw error;
        skipped = true;
        return [];
      }),
      host.getVmi(node),
    ]);
    last = { vmi, attachment: hostAttachmentOf(pvc, vmi, attachments) };
    return skipped || last.attachment.state !== 'elsewhere';
  };
  let outcome: Awaited<ReturnType<typeof waitUntil>>;
  try {
    outcome = await withWaitSignal(ctx, ms, (signal) =>
      waitUntil(settled, { timeoutMs: Infinity, intervalMs: ATTACHMENT_POLL_MS, signal }),
    );
  } catch (error) {
    // A host request ended by the call's cancellation or deadline: the wait's end, not a failure.
    if (!ctx.signal.aborted) throw error;
    outcome = 'aborted';
  }
  if (skipped)
    ctx.log.warn(
      { volumeId, node },
      'the host credentials may not list VolumeAttachments: publishing without waiting for the host attachment to settle',
    );
  if (outcome === 'ok') return;
  const seen = last?.attachment;
  throw new CsiError(
    'CSI_HOST_ATTACHMENT_ELSEWHERE',
    seen?.state === 'elsewhere'
      ? describeAttachmentElsewhere(volumeId, vmiKey, last?.vmi, seen)
      : `volume ${volumeId}: the host attachment was not checked before the call ended; retry`,
  );
}
