import type { GuestFilesystemStatus, VolumeExpansion } from './volume-expansion.js';

/** One VolumeExpansion as `voe status` shows it (the CRD's printer columns, and the reason). */
export interface StatusRow {
  namespace: string;
  name: string;
  pvc: string;
  vm: string;
  from: string;
  to: string;
  phase: string;
  waitingFor: string;
  reason: string;
  /** RFC 3339 creation time. */
  created: string;
  message: string;
  /** The guest's filesystem once the guest saw the disk (bytes before and after a growth), when recorded. */
  guestFilesystem?: GuestFilesystemStatus;
}

export function statusRow(expansion: VolumeExpansion): StatusRow {
  return {
    namespace: expansion.metadata?.namespace ?? '',
    name: expansion.metadata?.name ?? '',
    pvc: expansion.spec?.pvcName ?? '',
    vm: expansion.spec?.vmName ?? '',
    from: expansion.spec?.from ?? '',
    to: expansion.spec?.to ?? '',
    phase: expansion.status?.phase ?? '',
    waitingFor: expansion.status?.waitingFor ?? '',
    reason: expansion.status?.reason ?? '',
    created: expansion.metadata?.creationTimestamp ?? '',
    message: expansion.status?.message ?? '',
    ...(expansion.status?.guestFilesystem
      ? { guestFilesystem: expansion.status.guestFilesystem }
      : {}),
  };
}

/** An age as kubectl prints it: 45s, 5m10s (under 10 minutes), 12m, 3h20m (under 10 hours), 5h, 3d4h, 12d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 10) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  return `${d}d`;
}

/**
 * The table `voe status` prints: PVC, VM, FROM, TO, PHASE, WAITING FOR, AGE, MESSAGE (NAMESPACE
 * first with all namespaces), columns padded as kubectl pads them, rows sorted by namespace,
 * PVC and creation. Pure.
 */
export function formatStatusTable(
  rows: readonly StatusRow[],
  options: { allNamespaces: boolean; now: number },
): string {
  const sorted = [...rows].sort(
    (a, b) =>
      a.namespace.localeCompare(b.namespace) ||
      a.pvc.localeCompare(b.pvc) ||
      a.created.localeCompare(b.created),
  );
  const header = ['PVC', 'VM', 'FROM', 'TO', 'PHASE', 'WAITING FOR', 'AGE', 'MESSAGE'];
  const cells = sorted.map((row) => {
    const created = Date.parse(row.created);
    return [
      row.pvc,
      row.vm,
      row.from,
      row.to,
      row.phase,
      row.waitingFor,
      Number.isNaN(created) ? '<unknown>' : formatAge(options.now - created),
      row.message.replace(/\s+/g, ' '),
    ];
  });
  const table = options.allNamespaces
    ? [['NAMESPACE', ...header], ...cells.map((c, i) => [sorted[i]!.namespace, ...c])]
    : [header, ...cells];
  const widths = table[0]!.map((_, column) =>
    Math.max(...table.map((line) => line[column]!.length)),
  );
  return table
    .map((line) =>
      line
        .map((cell, column) =>
          column === line.length - 1 ? cell : cell.padEnd(widths[column]! + 3),
        )
        .join('')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}
