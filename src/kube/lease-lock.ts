import type { KubeClientConfig } from './kube-client-config.js';
import { requestJson } from './kube-request.js';
import { resourcePath } from './resource-ref.js';
import type { LeaseRecord } from './lease-decision.js';

export interface VersionedLease {
  record: LeaseRecord;
  resourceVersion: string;
}

/** Port: where the election record lives. One production adapter: `leaseLock` (coordination.k8s.io/v1 Lease). */
export interface LeaseLock {
  readonly description: string;
  /** undefined when the object does not exist. */
  get(timeoutMs: number): Promise<VersionedLease | undefined>;
  /** Fails with 409 AlreadyExists when someone created it first. */
  create(record: LeaseRecord, timeoutMs: number): Promise<VersionedLease>;
  /** Replace guarded by resourceVersion: fails with 409 Conflict when someone wrote in between. */
  update(record: LeaseRecord, resourceVersion: string, timeoutMs: number): Promise<VersionedLease>;
}

interface LeaseJson {
  metadata?: { resourceVersion?: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

function fromJson(l: LeaseJson): VersionedLease {
  const s = l.spec ?? {};
  return {
    resourceVersion: l.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: s.holderIdentity ?? '',
      leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
      acquireTime: s.acquireTime,
      renewTime: s.renewTime,
      leaseTransitions: s.leaseTransitions ?? 0,
    },
  };
}

/** MicroTime text (6 fractional digits) as the API server expects for Lease and Event times. */
export function microTime(date: Date = new Date()): string {
  // As client-node's V1MicroTime writes it: milliseconds, then three zeros.
  return `${date.toISOString().slice(0, -1)}000Z`;
}

/** A coordination.k8s.io/v1 Lease as the election record (client-go's LeaseLock). */
export function leaseLock(
  kubeConfig: KubeClientConfig,
  namespace: string,
  name: string,
): LeaseLock {
  const path = resourcePath({
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    namespace,
    name,
  });
  const collection = resourcePath({
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    namespace,
  });
  const body = (record: LeaseRecord, resourceVersion?: string): unknown => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: resourceVersion ? { name, namespace, resourceVersion } : { name, namespace },
    spec: record,
  });
  return {
    description: `${namespace}/${name}`,
    async get(timeoutMs) {
      try {
        return fromJson(
          await requestJson<LeaseJson>(kubeConfig, { method: 'GET', path, timeoutMs }),
        );
      } catch (err) {
        if ((err as { code?: unknown }).code === 404) return undefined;
        throw err;
      }
    },
    async create(record, timeoutMs) {
      return fromJson(
        await requestJson<LeaseJson>(kubeConfig, {
          method: 'POST',
          path: collection,
          body: body(record),
          timeoutMs,
        }),
      );
    },
    async update(record, resourceVersion, timeoutMs) {
      return fromJson(
        await requestJson<LeaseJson>(kubeConfig, {
          method: 'PUT',
          path,
          body: body(record, resourceVersion),
          timeoutMs,
        }),
      );
    },
  };
}
