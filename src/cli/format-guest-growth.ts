import { formatBytes, renderGuestCommands, type GuestGrowthPlan } from '../fsresize/index.js';
import type { GuestGrowthRun } from '../guest-grow/index.js';

const sized = (bytes: number | undefined): string =>
  bytes === undefined ? '?' : formatBytes(bytes);

/** `voe guest grow --dry-run`: each command as typed in the guest, and why; or the refusal. */
export function formatGuestPlan(plan: GuestGrowthPlan, where: string): string {
  if (plan.kind === 'refuse')
    return `${where}: refused (${plan.error.code}): ${plan.error.reason}\n  remedy: ${plan.error.remedy}\n`;
  if (plan.steps.length === 0)
    return `${where}: nothing to grow, everything on the disk already fills it.\n`;
  const lines = renderGuestCommands(plan);
  return (
    `${where}: would run ${plan.steps.length} command(s) in the guest, in order (nothing was run):\n` +
    plan.steps.map((step, i) => `  ${i + 1}. ${lines[i]}\n     why: ${step.why}\n`).join('')
  );
}

/** What a run did: each command, its exit code and the sizes before and after; how it ended. */
export function formatGuestRun(run: GuestGrowthRun, where: string): string {
  const steps = run.steps.map((step, i) => {
    const command = step.argv.join(' ');
    const sizes = `${step.reading} of ${step.of}: ${sized(step.beforeBytes)} -> ${sized(step.afterBytes ?? step.beforeBytes)}`;
    if (!step.ran) return `  ${i + 1}. skipped (already done): ${command} (${sizes})\n`;
    const end = step.timedOut ? 'timed out' : `exit ${step.exitCode ?? 'none'}`;
    const output = [step.stdout, step.stderr]
      .filter((text) => text)
      .map((text) => `     | ${text!.split('\n').join('\n     | ')}\n`)
      .join('');
    return `  ${i + 1}. ran: ${command} (${end}; ${sizes})\n${output}`;
  });
  const head =
    run.outcome === 'grown'
      ? `${where}: grown.`
      : run.outcome === 'already-grown'
        ? `${where}: nothing to grow, everything on the disk already fills it.`
        : `${where}: ${run.outcome === 'refused' ? 'refused' : 'stopped'} (${run.error?.code ?? '?'}): ${run.error?.message ?? ''}`;
  return `${head}\n${steps.join('')}`;
}

/** The Event note of a run: the commands and their ends, or the error; sizes, never output. */
export function guestRunNote(run: GuestGrowthRun): string {
  const ran = run.steps
    .filter((step) => step.ran)
    .map(
      (step) =>
        `${step.argv.join(' ')} (${step.timedOut ? 'timed out' : `exit ${step.exitCode ?? 'none'}`}; ${step.reading} ${sized(step.beforeBytes)} -> ${sized(step.afterBytes)})`,
    );
  const commands = ran.length > 0 ? ` Ran: ${ran.join('; ')}.` : '';
  return run.outcome === 'grown'
    ? `Grew the guest's disk through its guest agent.${commands}`
    : `${run.error?.code ?? ''}: ${run.error?.message ?? ''}${commands}`;
}
