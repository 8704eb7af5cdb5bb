/**
 * The phases of a VolumeExpansion (docs/tracker.md "Phases"), in the order an expansion goes
 * through them, then the endings and the waiting states.
 */
export const Phase = {
  ControllerResizing: 'ControllerResizing',
  NodeResizePending: 'NodeResizePending',
  NodeResizing: 'NodeResizing',
  VMUpdating: 'VMUpdating',
  HypervisorResizing: 'HypervisorResizing',
  GuestVerifying: 'GuestVerifying',
  /** An opted-in VM's guest grows its partition, LVM and filesystem (the guest agent runs it). */
  GuestFilesystemGrowing: 'GuestFilesystemGrowing',
  Completed: 'Completed',
  Infeasible: 'Infeasible',
  Stuck: 'Stuck',
  RolledBack: 'RolledBack',
  Superseded: 'Superseded',
} as const;

export type PhaseValue = (typeof Phase)[keyof typeof Phase];

export const PHASES: readonly PhaseValue[] = Object.values(Phase);

/** Phases after which nothing the actors write changes the object any more. */
export const FINAL_PHASES: ReadonlySet<PhaseValue> = new Set([
  Phase.Completed,
  Phase.RolledBack,
  Phase.Superseded,
]);

/** The outcomes counted by voe_expansions_total: the final phases and Infeasible (final unless the user lowers or raises the request). */
export const OUTCOME_PHASES: ReadonlySet<PhaseValue> = new Set([
  Phase.Completed,
  Phase.Infeasible,
  Phase.RolledBack,
  Phase.Superseded,
]);

/** The actor an expansion waits for (`status.waitingFor`). */
export const WaitingFor = {
  ExternalResizer: 'external-resizer',
  Kubelet: 'kubelet',
  VirtController: 'virt-controller',
  VirtHandler: 'virt-handler',
  Guest: 'guest',
  User: 'user',
} as const;

export type WaitingForValue = (typeof WaitingFor)[keyof typeof WaitingFor];

export function isPhase(value: unknown): value is PhaseValue {
  return typeof value === 'string' && (PHASES as readonly string[]).includes(value);
}
