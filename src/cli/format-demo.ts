import type {
  DemoReport,
  DemoStepResult,
  ExpansionResult,
  GuestDf,
  SurveyEntry,
  TimelineEntry,
  VmDemoReport,
} from '../demo/index.js';
import { formatStatusTable } from '../vmwatcher/index.js';

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
  return `\n${head}\n${formatTrackerSummary(report)}${tail}\n`;
}

/** The tracker's lines of the summary: where each followed expansion ended, and any that did not end as its plays lead. */
function formatTrackerSummary(report: DemoReport): string {
  if (report.expansions.length === 0) return '';
  const ends = new Map<string, number>();
  for (const result of report.expansions) {
    const last = result.timeline.at(-1);
    const end = result.ok && last ? `${last.phase} (${last.reason})` : 'not as expected';
    ends.set(end, (ends.get(end) ?? 0) + 1);
  }
  const counts = [...ends].map(([end, count]) => `${count} ${end}`).join(', ');
  const lines = [
    `${report.expansions.length} admitted resizes followed by the voe tracker (${report.trackerUrl}/metrics, stopped again): ${counts}.`,
  ];
  const wrong = report.expansions.filter((result) => !result.ok);
  if (wrong.length > 0)
    lines.push(
      `${wrong.length} expansion(s) did not go through the tracker's phases as expected: ${wrong.map((r) => r.expansion).join(', ')}.`,
    );
  return `${lines.join('\n')}\n`;
}

/** The heading of the demo's second part, printed before the first followed expansion. */
export const TRACKER_PART_HEADING =
  '\nAfter admission: the voe tracker follows each admitted resize while test actors write what ' +
  'external-resizer, kubelet and virt-controller write (no guest probe here, so a running VM ends ' +
  'this part at HypervisorResizing).\n';

/** One followed expansion: each write, the phase the tracker showed after it and how soon, then its last message. */
export function formatDemoExpansion(result: ExpansionResult): string {
  const last = result.timeline.at(-1);
  const lines = [
    `\n${result.pvc} ${result.from} -> ${result.to}, VM ${result.vm}: VolumeExpansion ${result.expansion}${result.ok ? '' : '  <-- MISMATCH'}`,
  ];
  const actorWidth = Math.max(...result.timeline.map((entry) => entry.actor.length), 0);
  const actionWidth = Math.max(...result.timeline.map((entry) => entry.action.length), 0);
  for (const entry of result.timeline) {
    const waiting = entry.waitingFor ? `, waiting for ${entry.waitingFor}` : '';
    const after = entry.afterMs === undefined ? '' : `  (seen in ${entry.afterMs} ms)`;
    lines.push(
      `    ${entry.actor.padEnd(actorWidth)}  ${entry.action.padEnd(actionWidth)}  -> ${entry.phase} (${entry.reason})${waiting}${after}`,
    );
  }
  if (last?.message) lines.push(`    ${last.message}`);
  if (result.mismatch) lines.push(`    MISMATCH: ${result.mismatch}`);
  return `${lines.join('\n')}\n`;
}

/** Bytes as GiB (two decimals) with the exact count, or "-" when not measured. */
function bytesText(bytes: string | undefined): string {
  if (bytes === undefined) return '-';
  return `${(Number(bytes) / 1024 ** 3).toFixed(2)} GiB`;
}

/** status.guestFilesystem as the tracker recorded it: its result, and its bytes before -> after. */
function guestFilesystemText(grown: TimelineEntry['guestFilesystem']): string {
  if (grown === undefined) return '';
  const sizes =
    grown.beforeBytes && grown.afterBytes
      ? ` ${bytesText(grown.beforeBytes)} -> ${bytesText(grown.afterBytes)}`
      : '';
  return `${grown.result}${sizes}`;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? '' : `${(ms / 1000).toFixed(2)} s`;
}

/** The guest's df before the edit and after Completed, with the growth. */
function dfLines(df: VmDemoReport['df']): string[] {
  const row = (when: string, d: GuestDf): string =>
    `  ${when}  ${d.sizeBytes.padStart(12)} bytes (${bytesText(d.sizeBytes)}), ${d.usedBytes} used, ${d.availableBytes} available`;
  const lines = [
    `The guest's df -P -B1 ${df.before.mountPoint} (${df.before.filesystem}):`,
    row('before the edit:', df.before),
  ];
  if (df.after === undefined)
    return [...lines, '  after Completed:  not read (the expansion did not complete)'];
  const grown = BigInt(df.after.sizeBytes) - BigInt(df.before.sizeBytes);
  return [
    ...lines,
    row('after Completed:', df.after),
    `  the filesystem grew by ${grown} bytes (${bytesText(String(grown))})`,
  ];
}

/**
 * `voe demo --vm`'s timeline: for each write, when the tracker showed its phase after the PVC edit,
 * who wrote, the phase (waiting for whom), how long the write took and the tracker after it, and
 * the hypervisor's and guest's sizes and the guest filesystem's growth the VolumeExpansion
 * recorded; then its last message and the
 * guest's df of the grown filesystem before and after.
 */
export function formatVmDemo(report: VmDemoReport): string {
  const result = report.expansion;
  const rows = result.timeline.map((entry) => [
    seconds(entry.atMs),
    entry.actor,
    `${entry.phase}${entry.waitingFor ? ` (${entry.waitingFor})` : ''}`,
    entry.actMs === undefined ? '' : `${entry.actMs} ms`,
    entry.afterMs === undefined ? '' : `${entry.afterMs} ms`,
    bytesText(entry.hypervisor),
    bytesText(entry.guest),
    guestFilesystemText(entry.guestFilesystem),
  ]);
  const head = [
    'AFTER EDIT',
    'ACTOR',
    'PHASE (WAITING FOR)',
    'WRITE',
    'TRACKER',
    'HYPERVISOR',
    'GUEST',
    'GUEST FILESYSTEM',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    `  ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  const lines = [
    `Domain ${report.domain} (booted in ${seconds(report.bootMs)}): PVC ${result.pvc} ${result.from} -> ${result.to}, VolumeExpansion ${result.expansion}${result.ok ? '' : '  <-- MISMATCH'}`,
    '',
    line(head),
    ...rows.map(line),
    '',
  ];
  for (const entry of result.timeline) lines.push(`  ${entry.actor}: ${entry.action}`);
  const last = result.timeline.at(-1);
  if (last?.message) lines.push('', last.message);
  if (result.mismatch) lines.push(`MISMATCH: ${result.mismatch}`);
  lines.push('', ...dfLines(report.df));
  lines.push('', vmDemoVerdict(report));
  return `${lines.join('\n')}\n`;
}

function vmDemoVerdict(report: VmDemoReport): string {
  if (!report.expansion.ok)
    return 'The tracker did not show the phases this resize leads to; see the MISMATCH above.';
  if (!report.ok) return "The guest's df does not show a larger filesystem after Completed.";
  return `The tracker followed the resize from the PVC edit to the guest's own view of the disk and grew its filesystem (webhook ${report.webhookUrl}, tracker ${report.trackerUrl}/metrics; both stopped, the domain destroyed).`;
}

/** Every VolumeExpansion at the end of the demo, as `voe status -n default` prints them. */
export function formatDemoStatus(report: DemoReport, now: number): string {
  if (report.status.length === 0) return '';
  return `\n$ voe status -n default\n${formatStatusTable(report.status, { allNamespaces: false, now })}`;
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
