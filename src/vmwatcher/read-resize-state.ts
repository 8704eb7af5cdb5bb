import type { PvcCondition, PersistentVolumeClaim } from '../model/index.js';

/**
 * A PVC's `status.allocatedResourceStatuses["storage"]`, with both spellings read as one: up to
 * Kubernetes 1.30 the failures were ControllerResizeFailed / NodeResizeFailed, from 1.31
 * ControllerResizeInfeasible / NodeResizeInfeasible (KEP-1790, "Recover from volume expansion failure"; docs/tracker.md "Phases").
 */
export type ResizeStatus =
  | 'ControllerResizeInProgress'
  | 'ControllerResizeInfeasible'
  | 'NodeResizePending'
  | 'NodeResizeInProgress'
  | 'NodeResizeInfeasible';

const SPELLINGS: Readonly<Record<string, ResizeStatus>> = {
  ControllerResizeInProgress: 'ControllerResizeInProgress',
  ControllerResizeInfeasible: 'ControllerResizeInfeasible',
  ControllerResizeFailed: 'ControllerResizeInfeasible',
  NodeResizePending: 'NodeResizePending',
  NodeResizeInProgress: 'NodeResizeInProgress',
  NodeResizeInfeasible: 'NodeResizeInfeasible',
  NodeResizeFailed: 'NodeResizeInfeasible',
};

export interface ResizeState {
  /** The storage resize status, normalised to the 1.31+ spelling; undefined when unset or unknown. */
  status: ResizeStatus | undefined;
  /** The value as written (e.g. ControllerResizeFailed), when set. */
  written: string | undefined;
  /** The conditions with status True, by type. */
  resizing: PvcCondition | undefined;
  fileSystemResizePending: PvcCondition | undefined;
  controllerResizeError: PvcCondition | undefined;
  nodeResizeError: PvcCondition | undefined;
}

function trueCondition(pvc: PersistentVolumeClaim, type: string): PvcCondition | undefined {
  return pvc.status?.conditions?.find(
    (condition) => condition.type === type && condition.status === 'True',
  );
}

/** What external-resizer and kubelet wrote into the PVC's status about the expansion. Pure. */
export function readResizeState(pvc: PersistentVolumeClaim): ResizeState {
  const raw = pvc.status?.allocatedResourceStatuses?.['storage'];
  const written = typeof raw === 'string' && raw !== '' ? raw : undefined;
  return {
    status: written === undefined ? undefined : SPELLINGS[written],
    written,
    resizing: trueCondition(pvc, 'Resizing'),
    fileSystemResizePending: trueCondition(pvc, 'FileSystemResizePending'),
    controllerResizeError: trueCondition(pvc, 'ControllerResizeError'),
    nodeResizeError: trueCondition(pvc, 'NodeResizeError'),
  };
}
