/** The fields of a coordination.k8s.io/v1 Lease spec that leader election reads and writes. */
export interface LeaseRecord {
  /** '' when nobody holds it (e.g. released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** RFC 3339 MicroTime strings as the API server returns them. */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** The lease as this candidate last saw it change, and when by its own clock. */
export interface LeaseObservation {
  record: LeaseRecord;
  /** Observer's clock (ms) when `record` was first seen in this form. */
  observedAt: number;
}

export type LeaseDecision =
  /** No Lease object: create it holding it. */
  | { action: 'create'; record: LeaseRecord }
  /** We hold it: write a new renewTime. */
  | { action: 'renew'; record: LeaseRecord }
  /** Free or expired by our clock: take it over (leaseTransitions + 1). */
  | { action: 'acquire'; record: LeaseRecord }
  /** Someone else holds it and it has not expired by our clock. */
  | { action: 'wait'; holder: string; expiresAt: number };

export interface LeaseDecisionInput {
  /** Current lease spec; undefined when the Lease does not exist. */
  current: LeaseRecord | undefined;
  previous: LeaseObservation | undefined;
  identity: string;
  /** Observer's clock (ms). */
  now: number;
  /** Wall-clock MicroTime to write as renew/acquire time. */
  nowTime: string;
  /** Our configured lease duration, written into the record. */
  leaseDurationSeconds: number;
}

function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}

/**
 * client-go's tryAcquireOrRenew as a pure function. The expiry of someone else's lease is
 * judged by OUR clock: the lease is valid until observedAt + leaseDurationSeconds, where
 * observedAt is when we first saw the record in its current form; renewTime written by another
 * machine's clock is never compared with ours. A lease with an empty holder is free at once
 * (that is how a release hands over leadership immediately).
 */
export function decideLease(input: LeaseDecisionInput): {
  decision: LeaseDecision;
  observation: LeaseObservation | undefined;
} {
  const { current, previous, identity, now, nowTime, leaseDurationSeconds } = input;
  if (!current) {
    const record: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds,
      acquireTime: nowTime,
      renewTime: nowTime,
      leaseTransitions: 0,
    };
    return { decision: { action: 'create', record }, observation: previous };
  }
  const observation =
    previous && sameRecord(previous.record, current)
      ? previous
      : { record: { ...current }, observedAt: now };
  const expiresAt = observation.observedAt + current.leaseDurationSeconds * 1000;
  const isLeader = current.holderIdentity === identity;
  if (current.holderIdentity !== '' && !isLeader && expiresAt > now) {
    return { decision: { action: 'wait', holder: current.holderIdentity, expiresAt }, observation };
  }
  if (isLeader) {
    const record: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationSeconds,
      acquireTime: current.acquireTime ?? nowTime,
      renewTime: nowTime,
      leaseTransitions: current.leaseTransitions,
    };
    return { decision: { action: 'renew', record }, observation };
  }
  const record: LeaseRecord = {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: nowTime,
    renewTime: nowTime,
    leaseTransitions: current.leaseTransitions + 1,
  };
  return { decision: { action: 'acquire', record }, observation };
}

/** The record a leader writes when it steps down: no holder, 1 s duration, so the next candidate takes over at once. */
export function releasedRecord(current: LeaseRecord, nowTime: string): LeaseRecord {
  return {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: nowTime,
    renewTime: nowTime,
    leaseTransitions: current.leaseTransitions,
  };
}
