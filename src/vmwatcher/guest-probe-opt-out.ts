import type { VirtualMachine } from './tracker-objects.js';

/** The VM annotation by which a VM opts out of the guest probe: value "off". */
export const GUEST_PROBE_ANNOTATION = 'storage.voe.dev/guest-probe';

/** Whether the VM opts out of the guest probe (annotation storage.voe.dev/guest-probe: "off"). Pure. */
export function guestProbeOptedOut(vm: VirtualMachine | undefined): boolean {
  return vm?.metadata?.annotations?.[GUEST_PROBE_ANNOTATION] === 'off';
}
