import {
  type AdmissionOptions,
  API_SERVER_REFUSALS,
  apiServerFindings,
  quotaFindings,
  type NamespacePolicies,
  assembleResizeSnapshot,
  decideResize,
  type ResizeDecision,
} from '../admission/index.js';
import { createCacheSnapshotSource, type AdmissionCaches } from '../host-cache/index.js';
import type { PersistentVolumeClaim } from '../model/index.js';

export interface CheckResult extends Omit<ResizeDecision, 'reason'> {
  /** Kubernetes StatusReason: also "Forbidden" when the API server itself refuses (not bound, no expansion). */
  reason?: ResizeDecision['reason'] | 'Forbidden';
  pvc: string;
  from: string | undefined;
  to: string;
}

/**
 * What the user's update would get if the PVC's storage request became `size`: the API
 * server's own checks (apiServerFindings, with the namespace's LimitRanges) first, then the same
 * snapshot assembly and decideResize as the webhook over caches (here filled by list calls),
 * then ResourceQuota (quotaFindings), which the API server applies after the webhooks. The first
 * refusal in that order decides; every finding is listed.
 */
export function checkResize(
  pvc: PersistentVolumeClaim,
  size: string,
  caches: AdmissionCaches,
  options: AdmissionOptions,
  policies?: NamespacePolicies,
): CheckResult {
  const requests = pvc.spec?.resources?.requests;
  const grown: PersistentVolumeClaim = {
    ...pvc,
    spec: {
      ...pvc.spec,
      resources: { ...pvc.spec?.resources, requests: { ...requests, storage: size } },
    },
  };
  const source = createCacheSnapshotSource(caches, options);
  const snapshot = assembleResizeSnapshot(source, pvc, grown, options);
  const decision = decideResize(snapshot, options);
  const apiFindings = apiServerFindings(
    pvc,
    size,
    (name) => caches.storageClasses.get(undefined, name),
    policies,
  );
  const quota = quotaFindings(pvc, size, policies?.quotas ?? [], policies?.serverVersion);
  const from = requests?.['storage'];
  const sizes = {
    pvc: `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`,
    from: from === undefined ? undefined : String(from),
    to: size,
  };
  const findings = [...apiFindings, ...decision.findings, ...quota];
  // Before the webhook: its warnings never reach the user.
  const before = apiFindings.find((finding) => finding.outcome === 'refuse');
  // After it: only when the webhook allowed.
  const after = decision.allowed
    ? quota.find((finding) => finding.outcome === 'refuse')
    : undefined;
  const refusal = before ?? after;
  if (refusal) {
    const { code, reason } = API_SERVER_REFUSALS[refusal.decision] ?? {
      code: 422,
      reason: 'Invalid',
    };
    return {
      ...sizes,
      allowed: false,
      code,
      reason,
      message: refusal.message,
      warnings: before ? [] : decision.warnings,
      decision: refusal.decision,
      findings,
    };
  }
  return { ...sizes, ...decision, findings };
}
