import type { DemoReport, DemoStepResult, SurveyEntry } from '../demo/index.js';

/** One step of `voe demo` as printed while it runs; a mismatch says what was expected and what came back. */
export function formatDemoStep(result: DemoStepResult): string {
  const refused =
    result.refusedBy === 'voe-webhook'
      ? `REFUSED (${result.code ?? '?'}) by the voe webhook${result.decision ? ` (${result.decision})` : ''}`
      : `REFUSED (${result.code ?? '?'})`;
  const verdict = result.outcome === 'admitted' ? 'ADMITTED' : refused;
  const lines = [`${String(result.step).padStart(2)}. ${result.title}`];
  if (result.change) lines.push(`    first: ${result.change}`);
  lines.push(
    `    PVC ${result.pvc} ${result.from} -> ${result.to}: ${verdict}${result.ok ? '' : '  <-- MISMATCH'}`,
  );
  if (result.message) lines.push(`    ${result.message}`);
  if (!result.ok) {
    const expected = result.expectedDecision
      ? `${result.expected.toUpperCase()} by the voe webhook (${result.expectedDecision})`
      : result.expected.toUpperCase();
    lines.push(`    MISMATCH: ${result.mismatch ?? `expected ${expected}`}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The closing lines of `voe demo`: only refusals that are the voe webhook's own count as its refusals. */
export function formatDemoSummary(report: DemoReport): string {
  const admitted = report.steps.filter((s) => s.outcome === 'admitted').length;
  const byVoe = report.steps.filter(
    (s) => s.outcome === 'refused' && s.refusedBy === 'voe-webhook',
  ).length;
  const byOthers = report.steps.filter(
    (s) => s.outcome === 'refused' && s.refusedBy !== 'voe-webhook',
  ).length;
  const wrong = report.steps.filter((s) => !s.ok);
  const others =
    byOthers === 0 ? '' : `, ${byOthers} refused by something other than the voe webhook`;
  const head = `${report.steps.length} resizes: ${admitted} admitted, ${byVoe} refused by the voe webhook (${report.webhookUrl}, ValidatingWebhookConfiguration ${report.configurationName}, removed again)${others}.`;
  const tail =
    wrong.length === 0
      ? "Every answer is the one Harvester's design asks for."
      : `${wrong.length} answer(s) differ from Harvester's design: step(s) ${wrong.map((s) => s.step).join(', ')}.`;
  return `\n${head}\n${tail}\n`;
}

/**
 * The read-only survey of `voe demo` on a configured cluster: each answer, its message, and what
 * it could not judge; a PVC a VM names that does not exist as MISSING.
 */
export function formatSurvey(rows: SurveyEntry[], growBy: string): string {
  if (rows.length === 0)
    return 'No VirtualMachine uses a PVC in this cluster; nothing to show. Nothing was changed.\n';
  const lines = [
    `What the voe webhook would answer if each VM disk grew by ${growBy} now (nothing was changed):`,
    '',
  ];
  for (const row of rows) {
    if (!row.found) {
      lines.push(`MISSING  ${row.pvc}  used by ${row.vms.join(', ')}`, `         ${row.message}`);
      continue;
    }
    lines.push(
      `${row.allowed ? 'ALLOWED' : 'REFUSED'}  ${row.pvc} ${row.from ?? '(no request)'} -> ${row.to}  used by ${row.vms.join(', ')}`,
    );
    lines.push(`         ${row.message}`);
    // What the answer could not judge (LimitRanges or ResourceQuotas the user may not list), as `voe check` lists it.
    for (const finding of row.findings)
      if (finding.decision === 'api-policy-unreadable') lines.push(`         ${finding.message}`);
  }
  lines.push('', 'Run `voe check NAMESPACE/PVC --size Q` for every reason behind one answer.');
  return `${lines.join('\n')}\n`;
}
