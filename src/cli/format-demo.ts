import type { DemoReport, DemoStepResult, SurveyRow } from '../demo/index.js';

/** One step of `voe demo` as printed while it runs. */
export function formatDemoStep(result: DemoStepResult): string {
  const verdict = result.outcome === 'admitted' ? 'ADMITTED' : `REFUSED (${result.code ?? '?'})`;
  const lines = [`${String(result.step).padStart(2)}. ${result.title}`];
  if (result.change) lines.push(`    first: ${result.change}`);
  lines.push(`    PVC ${result.pvc} ${result.from} -> ${result.to}: ${verdict}${result.ok ? '' : `  <-- expected ${result.expected.toUpperCase()}`}`);
  if (result.message) lines.push(`    ${result.message}`);
  return `${lines.join('\n')}\n`;
}

/** The closing lines of `voe demo`. */
export function formatDemoSummary(report: DemoReport): string {
  const admitted = report.steps.filter((s) => s.outcome === 'admitted').length;
  const wrong = report.steps.filter((s) => !s.ok);
  const head = `${report.steps.length} resizes: ${admitted} admitted, ${report.steps.length - admitted} refused by the voe webhook (${report.webhookUrl}, ValidatingWebhookConfiguration ${report.configurationName}, removed again).`;
  const tail = wrong.length === 0
    ? 'Every answer is the one Harvester\'s design asks for.'
    : `${wrong.length} answer(s) differ from Harvester's design: step(s) ${wrong.map((s) => s.step).join(', ')}.`;
  return `\n${head}\n${tail}\n`;
}

/** The read-only survey of `voe demo` on a configured cluster. */
export function formatSurvey(rows: SurveyRow[], growBy: string): string {
  if (rows.length === 0) return 'No VirtualMachine uses a PVC in this cluster; nothing to show. Nothing was changed.\n';
  const lines = [`What the voe webhook would answer if each VM disk grew by ${growBy} now (nothing was changed):`, ''];
  for (const row of rows) {
    lines.push(`${row.allowed ? 'ALLOWED' : 'REFUSED'}  ${row.pvc} ${row.from ?? '(no request)'} -> ${row.to}  used by ${row.vms.join(', ')}`);
    lines.push(`         ${row.message}`);
  }
  lines.push('', 'Run `voe check NAMESPACE/PVC --size Q` for every reason behind one answer.');
  return `${lines.join('\n')}\n`;
}
