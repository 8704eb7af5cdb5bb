import type { CheckResult } from '../check/index.js';

/** The human-readable report of `voe check`: verdict, message, every finding, warnings. */
export function formatCheckResult(result: CheckResult): string {
  const lines: string[] = [];
  lines.push(`PVC ${result.pvc}: ${result.from ?? '(no request)'} -> ${result.to}`);
  const verdict = result.allowed
    ? `allowed (${result.decision})`
    : `refused (${result.code} ${result.reason ?? ''}, ${result.decision})`;
  lines.push(`Verdict: ${verdict}`);
  lines.push(`Message: ${result.message}`);
  lines.push('Findings:');
  const width = Math.max(...result.findings.map((finding) => finding.check.length));
  for (const finding of result.findings) {
    lines.push(
      `  ${`[${finding.outcome}]`.padEnd(8)} ${finding.check.padEnd(width)}  ${finding.message}`,
    );
  }
  if (result.warnings.length > 0) {
    lines.push('Warnings:');
    for (const text of result.warnings) lines.push(`  ${text}`);
  }
  lines.push('Nothing was changed.');
  return `${lines.join('\n')}\n`;
}
