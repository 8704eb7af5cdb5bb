import { isVoeError } from '../../errors/index.js';
import {
  formatBytes,
  type GuestGrowthError,
  type GuestGrowthPlan,
  type GuestStep,
  type StepCheck,
} from '../../fsresize/index.js';
import type { GuestAgent } from '../guest-agent.js';
import { GuestRunError } from '../guest-run-error.js';
import { runGuestCommand } from '../read/run-guest-command.js';
import { PROCESS_VM_LOCK, type VmLock } from './vm-lock.js';

/** The readings of a guest at one moment: the bytes a step's check names, undefined when not shown. */
export type GuestReadings = (check: StepCheck) => number | undefined;

export interface GuestGrowthRunOptions {
  /** The VM, `namespace/name`: one operation per VM at a time (`lock`). */
  vm: string;
  /** Reads the guest anew (linuxReadings, windowsReadings): before the first step and after each one. */
  read: (signal?: AbortSignal) => Promise<GuestReadings>;
  /** How long each step may run in the guest; default 5 min. */
  stepTimeoutMs?: number;
  lock?: VmLock;
  signal?: AbortSignal;
}

export const DEFAULT_STEP_TIMEOUT_MS = 300_000;

/** What kept of a command's output: trimmed, its last 4 KiB. */
const OUTPUT_KEPT = 4096;

/** One step of a run: the command, why, whether it ran, how it ended, and its reading before and after. */
export interface GuestStepRecord {
  argv: string[];
  stdin?: string;
  why: string;
  /** What the step's check reads (GuestReading) of which device. */
  reading: StepCheck['reading'];
  of: string;
  /** false: its result already held, so it was not run (a run stopped midway is finished this way). */
  ran: boolean;
  exitCode?: number | undefined;
  timedOut?: boolean;
  stdout?: string;
  stderr?: string;
  /** The reading before the step and after it; the size it had to reach. */
  beforeBytes: number | undefined;
  afterBytes?: number | undefined;
  targetBytes: number;
}

/** How a run ended: every step recorded; `error` says why it stopped or was refused. */
export interface GuestGrowthRun {
  outcome: 'grown' | 'already-grown' | 'refused' | 'failed';
  guest: 'linux' | 'windows' | undefined;
  steps: GuestStepRecord[];
  error?: GuestGrowthError | GuestRunError;
}

function kept(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= OUTPUT_KEPT ? trimmed : `…${trimmed.slice(-OUTPUT_KEPT)}`;
}

function recordOf(step: GuestStep, beforeBytes: number | undefined): GuestStepRecord {
  return {
    argv: [...step.argv],
    ...(step.stdin === undefined ? {} : { stdin: step.stdin }),
    why: step.why,
    reading: step.expect.reading,
    of: step.expect.of,
    ran: false,
    beforeBytes,
    targetBytes: step.expect.atLeastBytes,
  };
}

/**
 * Runs a guest's growth plan through its guest agent (docs/guest-growth.md "The runner"): one
 * operation per VM at a time; the steps in order, each with its timeout; before each step its
 * check's reading is taken (at least the target already: the step is skipped; below what the plan
 * read: the guest changed, stop); after each step the guest is read again and the reading must
 * reach the target. Stops at the first failure. A refused plan runs nothing; a plan with no steps
 * is `already-grown`. Every command is recorded with its exit code and output (trimmed) and the
 * readings before and after. Rejects only for what is not a VoeError.
 */
export async function runGuestGrowth(
  agent: GuestAgent,
  plan: GuestGrowthPlan,
  options: GuestGrowthRunOptions,
): Promise<GuestGrowthRun> {
  if (plan.kind === 'refuse')
    return { outcome: 'refused', guest: undefined, steps: [], error: plan.error };
  if (plan.steps.length === 0) return { outcome: 'already-grown', guest: plan.guest, steps: [] };
  const lock = options.lock ?? PROCESS_VM_LOCK;
  return lock.run(options.vm, () => runSteps(agent, plan.guest, plan.steps, options));
}

async function runSteps(
  agent: GuestAgent,
  guest: 'linux' | 'windows',
  steps: readonly GuestStep[],
  options: GuestGrowthRunOptions,
): Promise<GuestGrowthRun> {
  const records: GuestStepRecord[] = [];
  const failed = (error: unknown): GuestGrowthRun => {
    if (!isVoeError(error)) throw error;
    return {
      outcome: 'failed',
      guest,
      steps: records,
      error: error as GuestGrowthError | GuestRunError,
    };
  };
  let readings: GuestReadings;
  try {
    readings = await options.read(options.signal);
  } catch (error) {
    return failed(error);
  }
  for (const step of steps) {
    const check = step.expect;
    const record = recordOf(step, readings(check));
    records.push(record);
    const before = record.beforeBytes;
    if (before !== undefined && before >= check.atLeastBytes) continue;
    if (before === undefined || before < check.beforeBytes) return failed(changed(step, before));
    try {
      const result = await runGuestCommand(
        agent,
        {
          argv: step.argv,
          stdin: step.stdin,
          timeoutMs: options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS,
        },
        options.signal,
      );
      Object.assign(record, {
        ran: true,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        stdout: kept(result.stdout),
        stderr: kept(result.stderr),
      });
      if (result.timedOut) return failed(timedOut(step, options));
      if (result.exitCode !== 0) return failed(stepFailed(step, record));
      readings = await options.read(options.signal);
    } catch (error) {
      return failed(error);
    }
    record.afterBytes = readings(check);
    if (record.afterBytes === undefined || record.afterBytes < check.atLeastBytes)
      return failed(notReached(step, record.afterBytes));
  }
  return { outcome: 'grown', guest, steps: records };
}

function shown(bytes: number | undefined): string {
  return bytes === undefined ? 'not shown' : formatBytes(bytes);
}

function changed(step: GuestStep, before: number | undefined): GuestRunError {
  const { reading, of, beforeBytes } = step.expect;
  return new GuestRunError(
    'GUESTRUN_CHANGED',
    `before \`${step.argv.join(' ')}\`, the ${reading} reading of ${of} is ${shown(before)}, not the ${formatBytes(beforeBytes)} the plan was made from: the guest changed since, so nothing more was run; plan again (voe guest grow --dry-run) and check the disk in the guest`,
    { details: { argv: [...step.argv], reading, of, beforeBytes, readBytes: before } },
  );
}

function timedOut(step: GuestStep, options: GuestGrowthRunOptions): GuestRunError {
  const seconds = Math.round((options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS) / 1000);
  return new GuestRunError(
    'GUESTRUN_STEP_TIMEOUT',
    `\`${step.argv.join(' ')}\` did not finish in the guest within ${seconds} s; it may still run there (the guest agent cannot stop it), and nothing after it was run: check the guest (its load, the command's process), then run voe guest grow again, which finishes what is left`,
    { details: { argv: [...step.argv], timeoutSeconds: seconds } },
  );
}

function stepFailed(step: GuestStep, record: GuestStepRecord): GuestRunError {
  const said = record.stderr || record.stdout || '';
  const how =
    record.exitCode === undefined ? 'was ended by a signal' : `exited with ${record.exitCode}`;
  return new GuestRunError(
    'GUESTRUN_STEP_FAILED',
    `\`${step.argv.join(' ')}\` ${how} in the guest${said ? `: ${said.slice(-500)}` : ''}; nothing after it was run: fix what it says in the guest, then run voe guest grow again, which finishes what is left`,
    { details: { argv: [...step.argv], exitCode: record.exitCode } },
  );
}

function notReached(step: GuestStep, after: number | undefined): GuestRunError {
  const { reading, of, atLeastBytes } = step.expect;
  return new GuestRunError(
    'GUESTRUN_SIZE_NOT_REACHED',
    `\`${step.argv.join(' ')}\` exited 0, but the ${reading} reading of ${of} is ${shown(after)} afterwards, short of ${formatBytes(atLeastBytes)}; nothing after it was run: check the disk in the guest (lsblk, the tool's own report), then run voe guest grow again`,
    { details: { argv: [...step.argv], reading, of, atLeastBytes, readBytes: after } },
  );
}
