import type { ProbeTarget } from './guest-probe.js';

/**
 * The disk whose guest filesystem is grown: the probe's target (the VMI, its volume and disk
 * target, the launcher pod holding the domain) and the guest's device the probe matched it to
 * (by serial or address, never by name).
 */
export interface GuestGrowthTarget extends ProbeTarget {
  /** The guest's block device of the disk (vdb, sda; \\.\PhysicalDriveN on Windows), as the probe found it. */
  guestDevice: string;
}

/** A refusal of the plan (docs/guest-growth.md "Refusals"): nothing ran. */
export interface GuestGrowthRefusal {
  kind: 'refused';
  /** A stable GUESTGROW_* code (docs/errors.md). */
  code: string;
  reason: string;
  remedy: string;
}

/** What plan() found: the lines a user types in that guest (renderGuestCommands), or why none. */
export type GuestGrowthPlanResult =
  | {
      kind: 'planned';
      /** In order, each as a line of the guest's shell (a PowerShell line on Windows). */
      commands: string[];
    }
  | { kind: 'nothing-to-do' }
  | GuestGrowthRefusal;

/** One command the grower ran in the guest: its line, its exit code, its output (trimmed). */
export interface RanCommand {
  command: string;
  /** Undefined when it did not exit (a timeout, the agent lost). */
  exitCode?: number;
  output?: string;
}

/** The mounted filesystem a growth grew, as the guest reports it after the growth. */
export interface GrownFilesystem {
  /** Its mount point (a drive letter on Windows). */
  mountPoint: string;
  /** Its size in bytes before the growth and after (guest-get-fsinfo, or statfs in the guest). */
  beforeBytes: bigint;
  afterBytes: bigint;
}

/** What grow() did: grown (the sizes proven after), nothing to do, failed at a command, or refused. */
export type GuestGrowthOutcome =
  | ({ kind: 'grown'; ran: RanCommand[] } & GrownFilesystem)
  | { kind: 'nothing-to-do' }
  | {
      kind: 'failed';
      /** A stable code of the runner. */
      code: string;
      message: string;
      /** Every command run, the failed one last; the commands after it did not run. */
      ran: RanCommand[];
    }
  | GuestGrowthRefusal;

/**
 * The port through which the tracker grows a guest's partition, LVM and filesystem once the guest
 * sees its grown disk (docs/guest-growth.md): the guest agent's runner reads the guest's layout,
 * plans with the fsresize core and runs the plan through guest-exec. `plan` only reads; `grow`
 * runs (one guest operation per VM at a time, a timeout per command, a stop at the first
 * failure). Either may throw when the guest cannot be read; the tracker then says so.
 */
export interface GuestFilesystemGrower {
  plan(target: GuestGrowthTarget, signal?: AbortSignal): Promise<GuestGrowthPlanResult>;
  grow(target: GuestGrowthTarget, signal?: AbortSignal): Promise<GuestGrowthOutcome>;
}
