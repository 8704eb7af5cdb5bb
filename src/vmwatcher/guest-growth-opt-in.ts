import {
  GROW_GUEST_FILESYSTEM_ANNOTATION,
  type Namespace,
  type VirtualMachine,
} from '../model/index.js';
import { guestProbeOptedOut } from './guest-probe-opt-out.js';

/** Whether the tracker grows a VM's guest filesystem, and what decided it. */
export type GuestGrowthOptIn =
  | { grow: true; by: 'vm' | 'namespace' }
  | {
      grow: false;
      /**
       * off: the cluster-wide switch is off; no-probe: no guest probe sees this VM (growth
       * needs its agent); vm-off: the VM says "false"; not-asked: neither the VM nor its
       * Namespace says "true".
       */
      why: 'off' | 'no-probe' | 'vm-off' | 'not-asked';
    };

/** The annotation's value on an object: true, false, or unset (any other text counts as unset). */
function annotated(object: { metadata?: { annotations?: Record<string, string> } } | undefined) {
  const value = object?.metadata?.annotations?.[GROW_GUEST_FILESYSTEM_ANNOTATION];
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/**
 * Whether the tracker grows the guest filesystem of `vm` (docs/guest-growth.md "Opt-in"): only
 * with the cluster-wide switch on (voe watch --guest-filesystem-growth) and a guest probe that
 * sees the VM (configured, its namespace listed, the VM not opted out of it); then when the VM's
 * annotation storage.voe.dev/grow-guest-filesystem is "true", or its Namespace's is and the VM's
 * is not "false". Pure.
 */
export function guestGrowthOptIn(input: {
  enabled: boolean;
  /** A guest probe is configured and may probe this VM's namespace. */
  probed: boolean;
  vm: VirtualMachine | undefined;
  namespace: Namespace | undefined;
}): GuestGrowthOptIn {
  if (!input.enabled) return { grow: false, why: 'off' };
  if (!input.probed || guestProbeOptedOut(input.vm)) return { grow: false, why: 'no-probe' };
  const vm = annotated(input.vm);
  if (vm === true) return { grow: true, by: 'vm' };
  if (vm === false) return { grow: false, why: 'vm-off' };
  if (annotated(input.namespace) === true) return { grow: true, by: 'namespace' };
  return { grow: false, why: 'not-asked' };
}
