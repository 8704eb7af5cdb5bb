import { Phase, WaitingFor, type PhaseValue } from '../expansion-phase.js';
import type { ResizeState } from '../read-resize-state.js';
import { StageReason, type StageReasonValue } from '../stage-reason.js';
import type { Verdict } from './stage-verdict.js';

/** No resize state: what a state about another size says about this one. */
export const NO_RESIZE_STATE: ResizeState = {
  status: undefined,
  written: undefined,
  resizing: undefined,
  fileSystemResizePending: undefined,
  controllerResizeError: undefined,
  nodeResizeError: undefined,
};

/** ControllerResizeInfeasible or NodeResizeInfeasible for this size: Infeasible, the user rolls back. Pure. */
export function infeasibleVerdict(
  resize: ResizeState,
  claim: string,
  to: string,
  capacity: string | undefined,
): Verdict | undefined {
  const lower = `Lower spec.resources.requests.storage (to no less than its status.capacity, ${capacity ?? 'unknown'}) to roll back, or ask for a size the storage supports`;
  if (resize.status === 'ControllerResizeInfeasible') {
    const why = resize.controllerResizeError?.message;
    return {
      phase: Phase.Infeasible,
      waitingFor: WaitingFor.User,
      reason: StageReason.ControllerResizeInfeasible,
      message: `The storage driver refused to grow ${claim} to ${to} (${resize.written})${why ? `: ${why}` : ''}. Kubernetes does not retry this size. ${lower}.`,
      progressPhase: undefined,
    };
  }
  if (resize.status === 'NodeResizeInfeasible') {
    const why = resize.nodeResizeError?.message;
    return {
      phase: Phase.Infeasible,
      waitingFor: WaitingFor.User,
      reason: StageReason.NodeResizeInfeasible,
      message: `kubelet could not grow the filesystem of ${claim} to ${to} on the node (${resize.written})${why ? `: ${why}` : ''}. Kubernetes does not retry this size. ${lower}.`,
      progressPhase: undefined,
    };
  }
  return undefined;
}

/**
 * external-resizer's and kubelet's part while status.capacity is below the size: ControllerResizing
 * until the PV grew and the resizer wrote its last PVC status, then NodeResizePending (or
 * NodeResizing while kubelet works on it).
 */
export function resizeProgressVerdict(
  resize: ResizeState,
  pvBytes: bigint | undefined,
  to: bigint,
  claim: string,
  toText: string,
  pvText: string | undefined,
): Verdict {
  const controller = (reason: StageReasonValue, message: string): Verdict => ({
    phase: Phase.ControllerResizing,
    waitingFor: WaitingFor.ExternalResizer,
    reason,
    message,
    progressPhase: Phase.ControllerResizing,
  });
  const pvGrown = pvBytes !== undefined && pvBytes >= to;
  if (resize.status === 'ControllerResizeInProgress' || !pvGrown) {
    if (resize.controllerResizeError) {
      return controller(
        StageReason.ControllerResizeError,
        `external-resizer failed to grow the volume of ${claim} to ${toText} and retries: ${resize.controllerResizeError.message ?? 'no message'}.`,
      );
    }
    if (resize.status === 'ControllerResizeInProgress' || resize.resizing) {
      return controller(
        StageReason.ControllerResizeInProgress,
        `external-resizer is growing the volume of ${claim} to ${toText} (PV capacity ${pvText ?? 'unknown'}).`,
      );
    }
    return controller(
      StageReason.WaitingForResizer,
      `${claim} asks for ${toText}; the PV has ${pvText ?? 'no capacity'}, and external-resizer has not started growing it.`,
    );
  }
  const node = (phase: PhaseValue, reason: StageReasonValue, message: string): Verdict => ({
    phase,
    waitingFor: WaitingFor.Kubelet,
    reason,
    message,
    progressPhase: phase,
  });
  const nodeError = resize.nodeResizeError
    ? `kubelet failed to grow the filesystem of ${claim} and retries: ${resize.nodeResizeError.message ?? 'no message'}.`
    : undefined;
  if (resize.status === 'NodeResizeInProgress') {
    return node(
      Phase.NodeResizing,
      nodeError ? StageReason.NodeResizeError : StageReason.NodeResizeInProgress,
      nodeError ?? `kubelet is growing the filesystem of ${claim} to ${toText} on the node.`,
    );
  }
  if (resize.status === 'NodeResizePending' || resize.fileSystemResizePending) {
    return node(
      Phase.NodeResizePending,
      nodeError ? StageReason.NodeResizeError : StageReason.NodeResizePending,
      nodeError ??
        `The volume of ${claim} has grown to ${pvText}; kubelet grows its filesystem next, on the node of the pod that mounts it.`,
    );
  }
  // The PV grew but the PVC shows no node step: external-resizer writes the PVC's "pending node"
  // state after the PV's capacity, so that write is still to come (or not yet in the PVC cache,
  // whose watch may deliver it after the PV's).
  return controller(
    StageReason.ControllerResizeInProgress,
    `external-resizer grew the volume of ${claim} to ${pvText} and has yet to record it in the PVC.`,
  );
}
