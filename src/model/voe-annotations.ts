/** The VM annotation by which a VM opts out of the tracker's guest probe: value "off". */
export const GUEST_PROBE_ANNOTATION = 'storage.voe.dev/guest-probe';
