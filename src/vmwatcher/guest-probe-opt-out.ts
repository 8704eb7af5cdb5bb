import { GUEST_PROBE_ANNOTATION, type VirtualMachine } from '../model/index.js';

/** Whether the VM opts out of the guest probe (annotation storage.voe.dev/guest-probe: "off"). Pure. */
export function guestProbeOptedOut(vm: VirtualMachine | undefined): boolean {
  return vm?.metadata?.annotations?.[GUEST_PROBE_ANNOTATION] === 'off';
}
