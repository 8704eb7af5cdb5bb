import type { BlockDeviceId } from '../model/block-devices.js';
import type { RunOptions } from '../model/command-runner.js';
import { confirmStillVisible } from '../mounts/confirm-still-visible.js';
import { confirmUnchanged } from './confirm-unchanged.js';
import type { ReleaseLock } from './device-lock.js';
import { fsckExitText } from '../model/fsck-exit-meaning.js';
import type { InspectedDevice } from '../plan/inspect-device.js';
import type { GrowResult, Inspection, PrecheckRan } from '../model/inspection.js';
import { measureFilesystem } from '../devices/measure-filesystem.js';
import type { GrowPlan } from '../model/grow-plan.js';
import {
  checkedResult,
  dryRunResult,
  grownResult,
  noopResult,
  type CheckPlan,
  type ToolPlan,
} from '../plan/plan-results.js';
import { reserveTool } from './reserve-tool.js';
import type { ResizerPorts } from '../model/resizer-ports.js';
import { stopIfAsked } from './stop-if-asked.js';
import { fsckFailure, toolFailure } from '../model/tool-failure.js';
import { xfsGrowfsAfterBytes } from '../plan/xfs-growfs-after-bytes.js';

/** One grow of a device under its lock: what the steps that carry out its plan act on. */
export interface LockedGrow {
  ports: ResizerPorts;
  id: BlockDeviceId;
  /** The device lock, held: it names each tool started under it. */
  held: ReleaseLock;
  /** Set once a check or grow tool has started. */
  started: { tool: boolean };
  /** A request to stop, honoured before each tool (GrowOptions.signal). */
  signal: AbortSignal | undefined;
}

/**
 * Carries out a plan made on `inspected`: throws a refusal, reports a no-op or a dry run, or runs
 * the check and the grow tool through the runner port (each after the guards that must hold just
 * before it writes) and reports what they did (plan-results).
 */
export async function executePlan(
  grow: LockedGrow,
  plan: GrowPlan,
  inspected: InspectedDevice,
  dryRun: boolean,
): Promise<GrowResult> {
  const { inspection } = inspected;
  if (plan.kind === 'refuse') throw plan.error;
  if (plan.kind === 'noop') return noopResult(plan, inspection, dryRun);
  if (dryRun) return dryRunResult(plan, inspection);
  if (plan.kind === 'check') return checkOnly(grow, plan, inspection);
  return checkAndGrow(grow, plan, inspected);
}

/** A filesystem with nothing to grow that must be checked before anyone is told so. */
async function checkOnly(
  grow: LockedGrow,
  plan: CheckPlan,
  inspection: Inspection,
): Promise<GrowResult> {
  const checkCommand = [plan.precheck.tool, ...plan.precheck.args];
  stopIfAsked(grow.signal, `before running ${checkCommand.join(' ')}: nothing was changed`);
  const checked = await runCheck(
    grow,
    inspection,
    plan.precheck,
    `checking ${inspection.filesystem} on ${grow.id.path}, which records errors`,
  );
  return checkedResult(plan, inspection, checked);
}

/** The check, when the plan has one, then the grow tool; then the filesystem measured again. */
async function checkAndGrow(
  grow: LockedGrow,
  plan: ToolPlan,
  { inspection, mount }: InspectedDevice,
): Promise<GrowResult> {
  const { ports, id, signal } = grow;
  const command = [plan.tool, ...plan.args];
  const checkCommand = plan.precheck ? [plan.precheck.tool, ...plan.precheck.args] : null;
  stopIfAsked(signal, `before running ${(checkCommand ?? command).join(' ')}: nothing was changed`);
  let precheck: PrecheckRan | null = null;
  if (plan.precheck && checkCommand) {
    precheck = await runCheck(
      grow,
      inspection,
      plan.precheck,
      `checking ${inspection.filesystem} on ${id.path} before growing it offline`,
    );
    stopIfAsked(
      signal,
      `after ${checkCommand.join(' ')} had finished (${fsckExitText(precheck.exitCode)}), before ${command.join(' ')}: the filesystem was not grown${precheck.exitCode === 1 ? " (the check's fixes are written)" : ''}`,
      { precheck },
    );
  }
  await confirmStillVisible(ports.mounts, id, mount, inspection.filesystem as string);
  await confirmUnchanged(ports.devices, id, inspection, command.join(' '), precheck);
  reserveTool(grow.held, command.join(' '), precheck);
  const result = await ports.runner.run(plan.tool, plan.args, {
    timeoutMs: ports.growMs,
    critical: critical(grow),
  });
  if (result.exitCode !== 0)
    throw toolFailure(
      plan.tool,
      plan.args,
      result,
      `growing ${inspection.filesystem} on ${id.path}`,
      precheck ?? undefined,
    );
  return grownResult(
    inspection,
    command,
    precheck,
    await sizeAfter(grow, plan, inspection, result.stdout),
  );
}

/**
 * The check and the grow tool change the filesystem: they must run to their end even if voe
 * is stopped or killed, and the device lock names them so no other voe starts meanwhile.
 */
function critical({ held, started }: LockedGrow): NonNullable<RunOptions['critical']> {
  return {
    onStart: (pid: number) => {
      started.tool = true;
      held.recordTool(pid);
    },
  };
}

/** Runs e2fsck -f -p; 0 = clean, 1 = errors corrected; anything else needs a person. */
async function runCheck(
  grow: LockedGrow,
  inspection: Inspection,
  { tool, args }: { tool: string; args: string[] },
  purpose: string,
): Promise<PrecheckRan> {
  const { ports, id } = grow;
  await confirmUnchanged(ports.devices, id, inspection, [tool, ...args].join(' '), null);
  reserveTool(grow.held, [tool, ...args].join(' '), null);
  const check = await ports.runner.run(tool, args, {
    timeoutMs: ports.growMs,
    critical: critical(grow),
  });
  if (check.exitCode !== 0 && check.exitCode !== 1) throw fsckFailure(tool, args, check, purpose);
  return { command: [tool, ...args], exitCode: check.exitCode };
}

/** The filesystem's size after the grow tool ran. */
async function sizeAfter(
  { ports, id }: LockedGrow,
  plan: ToolPlan,
  inspection: Inspection,
  output: string,
): Promise<number> {
  // xfs_growfs reads the new size back from the kernel and prints it: no second xfs_io needed.
  const reported =
    plan.tool === 'xfs_growfs'
      ? xfsGrowfsAfterBytes(output, inspection.filesystemBytes ?? 0, inspection.blockBytes)
      : null;
  if (reported !== null) return reported;
  const after = await measureFilesystem(
    ports,
    id,
    inspection.filesystem as string,
    inspection.mountPoint,
  );
  return after.bytes;
}
