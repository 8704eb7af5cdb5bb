/**
 * The reasons of the Events a guest growth records on the VM (events.k8s.io/v1): stable,
 * CamelCase. Notes name the commands run and the sizes, never a secret (none passes through).
 */
export const GuestGrowEventReason = {
  /** The guest's partition, LVM and filesystem were grown; the note lists the commands. */
  Grown: 'GuestFilesystemGrown',
  /** The growth was refused (nothing run) or stopped at a failed step: the code, reason and remedy. */
  NotGrown: 'GuestFilesystemNotGrown',
} as const;

/** The Event action of a guest growth. */
export const GUEST_GROW_EVENT_ACTION = 'GrowGuestFilesystem';
