import type { GuestGrowthError } from './guest-growth-error.js';

/**
 * The reading that shows a step's result, taken before the step and after it:
 * - `table-end`: the last byte a partition may use by the GPT header (the backup header moved);
 * - `partition`: the partition's size in the table (sfdisk --json);
 * - `kernel`: the size the kernel gives the device (lsblk SIZE);
 * - `physical-volume`: pv_size; `logical-volume`: lv_size;
 * - `filesystem`: the filesystem's own size (dumpe2fs, xfs_io statfs, btrfs dump-super);
 * - `windows-partition`: Get-Partition's Size.
 */
export type GuestReading =
  | 'table-end'
  | 'partition'
  | 'kernel'
  | 'physical-volume'
  | 'logical-volume'
  | 'filesystem'
  | 'windows-partition';

/**
 * What makes a step idempotent: the runner reads `reading` of `of` before the step and skips
 * the step when it is at least `atLeastBytes` already; after the step, the reading must be at
 * least `atLeastBytes`, and a reading below `beforeBytes` is a shrink (stop).
 */
export interface StepCheck {
  reading: GuestReading;
  /** The device, partition, mount point or drive letter read. */
  of: string;
  beforeBytes: number;
  atLeastBytes: number;
}

/** One command in the guest, run by argv (never through a shell). */
export interface GuestStep {
  argv: readonly string[];
  /** What the command reads on its standard input (sfdisk's script), when it reads one. */
  stdin?: string;
  /** Why this step, for the user: what it grows and to what. */
  why: string;
  expect: StepCheck;
}

/**
 * The plan for one guest disk: the steps in order (none when everything already fills the
 * disk: a second run plans nothing), or a refusal (nothing is run).
 */
export type GuestGrowthPlan =
  | { kind: 'grow'; guest: 'linux' | 'windows'; steps: GuestStep[] }
  | { kind: 'refuse'; error: GuestGrowthError };
