import {
  EXPAND_VALIDATION_HARVESTER_DEFAULT,
  parseExpandValidation,
} from '../../settings/index.js';
import { roundUp } from '../csi/capacity-range.js';
import type { HostPvc } from '../host/host-objects.js';
import type { HostFacts } from './decide-expansion.js';
import { provisionersToJudge } from './provisioners-to-judge.js';
import { requestBytesOf } from './pvc-sizes.js';

export interface RefusedSize {
  /** The host PVC, its request carrying an infeasible mark for the size asked for. */
  pvc: HostPvc;
  requiredBytes: bigint;
  /** 0n: no limit. */
  limitBytes: bigint;
  roundingBytes: bigint;
  host: HostFacts;
}

const HARVESTER_DEFAULT = parseExpandValidation({ default: EXPAND_VALIDATION_HARVESTER_DEFAULT });

/**
 * Pure: whether a size the host marked infeasible is asked of the host again, and at what
 * request. Only when the host's Setting validates every provisioner of the PVC beyond
 * Harvester's default (an operator validated it), and once: the request is raised by one
 * rounding unit above the rounded size, because the host's external-resizer retries a request
 * equal to the size it marked only after its slow-retry delay (expandAndRecover: a PVC in its
 * slowSet whose allocatedResources equals the request is skipped), while a new size is tried at
 * once. A request already past the rounded size was raised so before: undefined (refused).
 */
export function retryRefusedSize(
  refused: RefusedSize,
): { action: 'patch'; requestBytes: bigint } | undefined {
  const { pvc, requiredBytes, limitBytes, roundingBytes, host } = refused;
  if (host.setting.state === 'invalid') return undefined;
  const { validation } = host.setting;
  const provisioners = provisionersToJudge(pvc, host.storageClass);
  if (provisioners.length === 0) return undefined;
  const validatedByOperator = provisioners.every(
    (name) => validation.allows(name) && !HARVESTER_DEFAULT.allows(name),
  );
  if (!validatedByOperator) return undefined;
  const rounded = roundUp(requiredBytes, roundingBytes);
  if ((requestBytesOf(pvc) ?? 0n) > rounded) return undefined;
  const requestBytes = rounded + roundingBytes;
  if (limitBytes !== 0n && requestBytes > limitBytes) return undefined;
  return { action: 'patch', requestBytes };
}
