import { Decision, type DecisionValue } from './decision.js';
import type { V1LimitRange, V1ResourceQuota } from '@kubernetes/client-node';
import {
  compareQuantities,
  isKubeError,
  parseQuantityValue,
  type QuantityValue,
} from '../kube/index.js';
import {
  type PersistentVolumeClaim,
  type StorageClass,
  storageRequestOrNone,
} from '../model/index.js';
import type { ResizeFinding } from './resize-snapshot.js';

/**
 * What the API server itself answers a refused resize with: an unbound claim and a shrink fail
 * validation (422 Invalid); a LimitRange and a StorageClass that does not allow expansion fail the
 * LimitRanger and PersistentVolumeClaimResize admission plugins before any webhook, and a
 * ResourceQuota the ResourceQuota plugin after the webhooks (403 Forbidden).
 */
export interface ApiServerRefusal {
  code: 403 | 422;
  reason: 'Forbidden' | 'Invalid';
}

export const API_SERVER_REFUSALS: Record<string, ApiServerRefusal> = {
  [Decision.ApiNotBound]: { code: 422, reason: 'Invalid' },
  [Decision.ApiExpansionNotAllowed]: { code: 403, reason: 'Forbidden' },
  [Decision.ApiBelowCapacity]: { code: 422, reason: 'Invalid' },
  [Decision.ApiBelowPrevious]: { code: 422, reason: 'Invalid' },
  [Decision.ApiInvalidSize]: { code: 422, reason: 'Invalid' },
  [Decision.ApiLimitRange]: { code: 403, reason: 'Forbidden' },
  [Decision.ApiQuotaExceeded]: { code: 403, reason: 'Forbidden' },
};

/** The beta annotation Kubernetes still reads before spec.storageClassName. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/**
 * The StorageClass the API server's admission and quota read for a PVC (Kubernetes
 * GetPersistentVolumeClaimClass): the beta annotation when it is present (even empty), else
 * spec.storageClassName.
 */
export function claimClassName(pvc: PersistentVolumeClaim): string {
  const annotations = pvc.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION))
    return annotations[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
  return pvc.spec?.storageClassName ?? '';
}

/** The namespace's LimitRanges and ResourceQuotas, and what could not be read (e.g. RBAC), for `voe check`. */
export interface NamespacePolicies {
  limitRanges: V1LimitRange[];
  quotas: V1ResourceQuota[];
  /** e.g. "LimitRanges in default (HTTP 403)": not judged, said so. */
  unreadable: string[];
  /** The API server's Kubernetes version (`/version`), when it could be read: decides whether a shrink may recover a failed expansion. */
  serverVersion?: { major: number; minor: number };
}

/** RecoverVolumeExpansionFailure is on by default from Kubernetes 1.32 (beta). */
const RECOVERY_DEFAULT_SINCE = { major: 1, minor: 32 };

/**
 * Whether validation lets a request go below its previous value (down to above status.capacity):
 * the RecoverVolumeExpansionFailure gate (on by default since 1.32; an unknown version is taken as
 * new), or an old claim that already carries status.allocatedResources or
 * allocatedResourceStatuses (Kubernetes ValidationOptionsForPersistentVolumeClaim).
 */
function recoveryAllowed(
  pvc: PersistentVolumeClaim,
  version: NamespacePolicies['serverVersion'],
): boolean {
  if (
    pvc.status?.['allocatedResources'] !== undefined ||
    pvc.status?.['allocatedResourceStatuses'] !== undefined
  )
    return true;
  return recoveryGateOn(version);
}

/** Whether RecoverVolumeExpansionFailure is on by default at this version (an unknown version is taken as new). */
function recoveryGateOn(version: NamespacePolicies['serverVersion']): boolean {
  if (!version) return true;
  return (
    version.major > RECOVERY_DEFAULT_SINCE.major ||
    (version.major === RECOVERY_DEFAULT_SINCE.major &&
      version.minor >= RECOVERY_DEFAULT_SINCE.minor)
  );
}

const ZERO: QuantityValue = { num: 0n, den: 1n };

function lenient(read: () => QuantityValue | undefined): QuantityValue | undefined {
  try {
    return read();
  } catch (error) {
    if (isKubeError(error)) return undefined;
    throw error;
  }
}

function quantity(text: unknown): QuantityValue | undefined {
  return typeof text === 'string' || typeof text === 'number'
    ? lenient(() => parseQuantityValue(String(text)))
    : undefined;
}

/** LimitRanger: a PersistentVolumeClaim limit's min and max storage against the new request. */
function limitRangeRefusal(
  size: string,
  target: QuantityValue,
  limitRanges: readonly V1LimitRange[],
): string | undefined {
  for (const range of limitRanges) {
    for (const limit of range.spec?.limits ?? []) {
      if (limit.type !== 'PersistentVolumeClaim') continue;
      const min = limit.min?.['storage'];
      const max = limit.max?.['storage'];
      const minValue = quantity(min);
      const maxValue = quantity(max);
      if (minValue && compareQuantities(target, minValue) < 0)
        return `minimum storage usage per PersistentVolumeClaim is ${String(min)}, but request is ${size} (LimitRange ${range.metadata?.name ?? ''}).`;
      if (maxValue && compareQuantities(target, maxValue) > 0)
        return `maximum storage usage per PersistentVolumeClaim is ${String(max)}, but request is ${size} (LimitRange ${range.metadata?.name ?? ''}).`;
    }
  }
  return undefined;
}

/**
 * The checks Kubernetes applies to a PVC update before the webhooks (docs/admission.md
 * "Upstream facts"), the first that refuses decides: validation (a size above zero; the
 * spec of an unbound claim is immutable; never down to status.capacity or below it, a missing
 * capacity counting as zero; a smaller request above it only to recover from a failed
 * expansion), then the LimitRanger admission plugin (a LimitRange's min and max storage per
 * PersistentVolumeClaim), then PersistentVolumeClaimResize for a growing request (the claim's
 * StorageClass, by claimClassName, with allowVolumeExpansion: true). The webhook does not repeat
 * them; `voe check` reports them so its answer is what the user's update would get. Pure; `size`
 * must be a valid quantity.
 */
export function apiServerFindings(
  pvc: PersistentVolumeClaim,
  size: string,
  storageClassNamed: (name: string) => StorageClass | null | undefined,
  policies: NamespacePolicies = { limitRanges: [], quotas: [], unreadable: [] },
): ResizeFinding[] {
  const sizes = claimSizes(pvc, size);
  if (sizes.request !== undefined && compareQuantities(sizes.target, sizes.request) === 0) {
    return [
      {
        check: 'api-server',
        outcome: 'pass',
        decision: Decision.NotResize,
        message: `The PVC already requests ${size}: the update changes nothing.`,
      },
    ];
  }
  const invalid = validationRefusal(pvc, sizes, policies.serverVersion);
  if (invalid) return [invalid];
  const notJudged: ResizeFinding[] = policies.unreadable.map((what) => ({
    check: 'api-server',
    outcome: 'skip',
    decision: Decision.ApiPolicyUnreadable,
    message: `Not judged: ${what} could not be read; the API server applies them too.`,
  }));
  const limited = limitRangeRefusal(size, sizes.target, policies.limitRanges);
  if (limited) return [...notJudged, refusal(Decision.ApiLimitRange, limited)];
  if (sizes.shrinking) return [...notJudged, recoveryFinding(sizes, policies.serverVersion)];
  return [...notJudged, expansionFinding(claimClassName(pvc), storageClassNamed)];
}

/** The sizes the API server compares: the new request, the stored one, the capacity. */
interface ClaimSizes {
  size: string;
  target: QuantityValue;
  /** The stored request; undefined when there is none. */
  request: QuantityValue | undefined;
  /** status.capacity, zero when none is recorded. */
  capacity: QuantityValue;
  /** The capacity as a message says it. */
  capacityText: string;
  /** The new request is below the stored one. */
  shrinking: boolean;
}

function claimSizes(pvc: PersistentVolumeClaim, size: string): ClaimSizes {
  const target = parseQuantityValue(size);
  const request = storageRequestOrNone(pvc.spec?.resources?.requests);
  return {
    size,
    target,
    request,
    capacity: storageRequestOrNone(pvc.status?.capacity) ?? ZERO,
    capacityText:
      pvc.status?.capacity?.['storage'] === undefined
        ? '0, none recorded'
        : String(pvc.status.capacity['storage']),
    shrinking: request !== undefined && compareQuantities(target, request) < 0,
  };
}

function refusal(decision: DecisionValue, message: string): ResizeFinding {
  return {
    check: 'api-server',
    outcome: 'refuse',
    decision,
    message: `The API server refuses it: ${message}`,
  };
}

/** Validation: a size above zero, a Bound claim, no shrink but the recovery from a failed expansion. */
function validationRefusal(
  pvc: PersistentVolumeClaim,
  { size, target, capacity, capacityText, shrinking }: ClaimSizes,
  serverVersion: NamespacePolicies['serverVersion'],
): ResizeFinding | undefined {
  if (target.num <= 0n)
    return refusal(
      Decision.ApiInvalidSize,
      `a storage request must be greater than zero, got ${size}.`,
    );
  if (pvc.status?.phase !== 'Bound') {
    return refusal(
      Decision.ApiNotBound,
      'spec is immutable after creation except resources.requests for bound claims, and this one is ' +
        `${pvc.status?.phase ?? 'without a phase'}. Wait until it is Bound.`,
    );
  }
  if (shrinking && !recoveryAllowed(pvc, serverVersion)) {
    const v = serverVersion!;
    return refusal(
      Decision.ApiBelowPrevious,
      `spec.resources.requests.storage can not be less than its previous value (${String(pvc.spec?.resources?.requests?.['storage'])}): ` +
        `Kubernetes ${v.major}.${v.minor} allows a smaller request only to recover from a failed expansion, with the RecoverVolumeExpansionFailure ` +
        'feature gate (on by default since 1.32). Volumes do not shrink; to use less space, copy the data to a new, smaller volume.',
    );
  }
  if (shrinking && compareQuantities(target, capacity) <= 0) {
    return refusal(
      Decision.ApiBelowCapacity,
      `spec.resources.requests.storage can not be less than status.capacity (${capacityText}), nor equal to it when the request is above it. ` +
        'Volumes do not shrink; to use less space, copy the data to a new, smaller volume.',
    );
  }
  return undefined;
}

/** A smaller request that validation let through: the recovery from a failed expansion, not judged by the webhook. */
function recoveryFinding(
  { capacityText }: ClaimSizes,
  serverVersion: NamespacePolicies['serverVersion'],
): ResizeFinding {
  return {
    check: 'api-server',
    outcome: 'pass',
    decision: Decision.Recovery,
    message:
      `A smaller request (above status.capacity ${capacityText}) is accepted only to recover from a failed expansion ` +
      `(RecoverVolumeExpansionFailure, on by default since Kubernetes 1.32${serverVersion ? `; this API server runs ${serverVersion.major}.${serverVersion.minor}` : "; the API server's version could not be read"}). ` +
      `It asks for no more than the expansion already pending above status.capacity (${capacityText}), so the webhook does not judge it.`,
  };
}

/** PersistentVolumeClaimResize: a growing request needs a StorageClass with allowVolumeExpansion: true. */
function expansionFinding(
  className: string,
  storageClassNamed: (name: string) => StorageClass | null | undefined,
): ResizeFinding {
  const storageClass = className ? storageClassNamed(className) : undefined;
  if (className && storageClass && storageClass.allowVolumeExpansion === true) {
    return {
      check: 'api-server',
      outcome: 'pass',
      decision: Decision.Allowed,
      message: `Bound, and StorageClass ${className} allows volume expansion.`,
    };
  }
  const why = !className
    ? 'the PVC names no StorageClass'
    : !storageClass
      ? `StorageClass "${className}" was not found`
      : `StorageClass "${className}" does not set allowVolumeExpansion: true`;
  const fix =
    storageClass && className
      ? ` Set allowVolumeExpansion: true on StorageClass ${className} if its driver can expand volumes.`
      : '';
  return refusal(
    Decision.ApiExpansionNotAllowed,
    `only dynamically provisioned PVCs whose StorageClass supports resize can be expanded (${why}).${fix}`,
  );
}

/**
 * The ResourceQuota admission plugin, which runs after the webhooks: for every quota of the
 * namespace without scopes, `requests.storage` and `<class>.storageclass.storage.k8s.io/requests.storage`
 * (class by claimClassName) may not go above `hard` by the growth of what the claim is charged.
 * A claim is charged its request, or with RecoverVolumeExpansionFailure (on by default from 1.32)
 * its `status.allocatedResources.storage` when that is larger (after a failed expansion whose
 * request was lowered): kubernetes pkg/quota/v1/evaluator/core/persistent_volume_claims.go.
 * Empty when nothing refuses. Pure.
 */
export function quotaFindings(
  pvc: PersistentVolumeClaim,
  size: string,
  quotas: readonly V1ResourceQuota[],
  serverVersion?: NamespacePolicies['serverVersion'],
): ResizeFinding[] {
  const growth = chargedGrowth(pvc, size, serverVersion);
  if (growth === undefined) return [];
  const className = claimClassName(pvc);
  const resources = [
    'requests.storage',
    ...(className ? [`${className}.storageclass.storage.k8s.io/requests.storage`] : []),
  ];
  for (const quota of quotas) {
    // PVC usage is not scoped (Terminating, BestEffort, PriorityClass... select pods): a quota with scopes does not count it.
    if ((quota.spec?.scopes?.length ?? 0) > 0 || quota.spec?.scopeSelector) continue;
    const resource = resources.find((name) => exceeds(quota, name, growth));
    if (resource === undefined) continue;
    return [
      {
        check: 'quota',
        outcome: 'refuse',
        decision: Decision.ApiQuotaExceeded,
        message:
          `The API server refuses it after the webhooks: exceeded quota ${quota.metadata?.name ?? ''}: ${resource} is ` +
          `${String(quota.status?.used?.[resource] ?? '0')} used of ${String(quota.status?.hard?.[resource] ?? quota.spec?.hard?.[resource])}, and growing ` +
          `from ${String(pvc.spec?.resources?.requests?.['storage'] ?? '0')} to ${size} would go above it. Free space in the namespace or raise the quota.`,
      },
    ];
  }
  return [];
}

/**
 * How much more the claim is charged at `size` (its request, or its allocated size when that is
 * larger and RecoverVolumeExpansionFailure is on); undefined when it is charged no more.
 */
function chargedGrowth(
  pvc: PersistentVolumeClaim,
  size: string,
  serverVersion: NamespacePolicies['serverVersion'],
): QuantityValue | undefined {
  const allocated = recoveryGateOn(serverVersion)
    ? storageRequestOrNone(
        pvc.status?.['allocatedResources'] as Record<string, unknown> | undefined,
      )
    : undefined;
  const charged = (value: QuantityValue): QuantityValue =>
    allocated !== undefined && compareQuantities(allocated, value) > 0 ? allocated : value;
  const target = charged(parseQuantityValue(size));
  const request = charged(storageRequestOrNone(pvc.spec?.resources?.requests) ?? ZERO);
  if (compareQuantities(target, request) <= 0) return undefined;
  return {
    num: target.num * request.den - request.num * target.den,
    den: target.den * request.den,
  };
}

/** Whether `growth` takes the quota's `resource` above its hard limit (status.hard, else spec.hard; none: never). */
function exceeds(quota: V1ResourceQuota, resource: string, growth: QuantityValue): boolean {
  const hard = quantity(quota.status?.hard?.[resource] ?? quota.spec?.hard?.[resource]);
  if (!hard) return false;
  const used = quantity(quota.status?.used?.[resource]) ?? ZERO;
  const after: QuantityValue = {
    num: used.num * growth.den + growth.num * used.den,
    den: used.den * growth.den,
  };
  return compareQuantities(after, hard) > 0;
}
