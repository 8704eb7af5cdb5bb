import { formatBytePair } from './format-byte-pair.js';
import { formatBytes } from './format-bytes.js';
import { fsckExitText } from '../model/fsck-exit-meaning.js';
import { FsResizeError } from '../model/fsresize-error.js';
import type { GrowResult, Inspection, PrecheckRan } from '../model/inspection.js';
import type { GrowPlan } from '../model/grow-plan.js';

/** A plan that runs the check only (see planGrow). */
export type CheckPlan = Extract<GrowPlan, { kind: 'check' }>;
/** A plan that runs the grow tool, perhaps after a check. */
export type ToolPlan = Extract<GrowPlan, { kind: 'grow' }>;

/*
 * Pure: what `grow` reports for a plan, once it has run what the plan needs (nothing, the check,
 * or the grow tool). The I/O that comes before each is executePlan's.
 */

/** What every result of the inspected device says. */
function resultBase(inspection: Inspection, dryRun: boolean) {
  return {
    device: inspection.device,
    filesystem: inspection.filesystem,
    mountPoint: inspection.mountPoint,
    deviceBytes: inspection.deviceBytes,
    beforeBytes: inspection.filesystemBytes,
    dryRun,
  };
}

/** A plan with nothing to do: its reason, nothing run. */
export function noopResult(
  plan: Extract<GrowPlan, { kind: 'noop' }>,
  inspection: Inspection,
  dryRun: boolean,
): GrowResult {
  return {
    ...resultBase(inspection, dryRun),
    action: 'noop',
    reason: plan.reason,
    afterBytes: inspection.filesystemBytes,
    command: null,
    precheck: null,
  };
}

/** A dry run: what would run (the check, the grow tool, or both), with `exitCode` null. */
export function dryRunResult(plan: CheckPlan | ToolPlan, inspection: Inspection): GrowResult {
  const base = { ...resultBase(inspection, true), action: 'noop' as const };
  const afterBytes = inspection.filesystemBytes;
  const checkCommand = plan.precheck ? [plan.precheck.tool, ...plan.precheck.args] : null;
  const precheck = checkCommand ? { command: checkCommand, exitCode: null } : null;
  if (plan.kind === 'check') {
    const reason = `dry run: ${plan.reason}: would check it with: ${(checkCommand as string[]).join(' ')}`;
    return { ...base, reason, afterBytes, command: null, precheck };
  }
  const command = [plan.tool, ...plan.args];
  const steps = [...(checkCommand ? [checkCommand.join(' ')] : []), command.join(' ')];
  const reason = `dry run: would ${plan.reason} with: ${steps.join(' && ')}`;
  return { ...base, reason, afterBytes, command, precheck };
}

/** A check-only plan whose check ran (and ended 0 or 1): nothing to grow. */
export function checkedResult(
  plan: CheckPlan,
  inspection: Inspection,
  checked: PrecheckRan,
): GrowResult {
  const checkCommand = [plan.precheck.tool, ...plan.precheck.args];
  return {
    ...resultBase(inspection, false),
    action: 'noop',
    afterBytes: inspection.filesystemBytes,
    command: null,
    precheck: checked,
    reason: `${plan.reason}: checked it (${checkCommand.join(' ')}, ${fsckExitText(checked.exitCode)}); nothing to grow`,
  };
}

/**
 * The grow tool `command` succeeded, after the check `precheck` if one ran, and the filesystem now
 * has `afterBytes`: grown, or a no-op when it stayed at its size (the rest of the device is too
 * small for it to use). Throws FSRESIZE_DEVICE_CHANGED when it is smaller than before.
 */
export function grownResult(
  inspection: Inspection,
  command: string[],
  precheck: PrecheckRan | null,
  afterBytes: number,
): GrowResult {
  const { device, filesystem, mountPoint } = inspection;
  const before = inspection.filesystemBytes ?? 0;
  // Preen mode may have written fixes: say that it ran, and how it ended.
  const checked = precheck
    ? `checked (${precheck.command.join(' ')}, ${fsckExitText(precheck.exitCode)}) and `
    : '';
  const [beforeSize, afterSize] = formatBytePair(before, afterBytes);
  if (afterBytes < before) {
    // resize2fs without a size fits the filesystem to the device: one shrunk while it ran is shrunk with it.
    throw new FsResizeError(
      'FSRESIZE_DEVICE_CHANGED',
      `${checked}${command.join(' ')} left ${filesystem} on ${device} smaller than before (${afterSize} instead of ${beforeSize}): the device was made smaller while it ran — check the volume's size and the filesystem (e2fsck -f) before using it`,
      precheck ? { details: { precheck } } : {},
    );
  }
  const base = resultBase(inspection, false);
  if (afterBytes === before) {
    return {
      ...base,
      action: 'noop',
      afterBytes,
      command,
      precheck,
      reason: `${checked}${command.join(' ')} succeeded but ${filesystem} on ${device} stayed at ${formatBytes(afterBytes)}: the remaining ${formatBytes(inspection.deviceBytes - afterBytes)} is too small for the filesystem to use`,
    };
  }
  return {
    ...base,
    action: 'grown',
    afterBytes,
    command,
    precheck,
    reason: `${checked}grew ${filesystem} on ${device} from ${beforeSize} to ${afterSize}${mountPoint ? ` online (mounted at ${mountPoint})` : ' offline'}`,
  };
}
