/**
 * The refusal messages. Each starts with `PVC_EXPAND: ` (Harvester's VM controller keys on it
 * to stop retrying) and, where Harvester has one, Harvester's exact sentence
 * (docs/admission.md "Results and messages"); then why and what the user can do.
 */
export const PVC_EXPAND_PREFIX = 'PVC_EXPAND: ';

export const HARVESTER_GATE_MESSAGE =
  'PVC_EXPAND: kubevirt ExpandDisks not included in featureGate';

export function harvesterHotplugMessage(pvcKey: string): string {
  return `PVC_EXPAND: Expansion of hotplugged PVC '${pvcKey}' in filesystem mode is not supported`;
}

export function harvesterProviderMessage(pvcKey: string): string {
  return `PVC_EXPAND: pvc ${pvcKey} is not online expandable with its provider`;
}

/** "ns/a, ns/b" for the messages, at most 3 names then "and N more". */
export function listVms(keys: string[]): string {
  if (keys.length <= 3) return keys.join(', ');
  return `${keys.slice(0, 3).join(', ')} and ${keys.length - 3} more`;
}

/**
 * Says that the PVC was found on running VMIs only (`labels` as vmUsers gives them: "VM ns/a",
 * "VMI ns/b (no VM)"), why that happens, and, as a sentence, what to do about it.
 */
export function instanceOnlyNote(labels: string[], options: { sentence?: boolean } = {}): string {
  const found =
    `found on the running VirtualMachineInstance only, not in the VM's spec: ${listVms(labels)}; ` +
    'hotplugged with virtctl addvolume without --persist, or removed from the spec while the VM runs';
  if (options.sentence === false) return found;
  return `It was ${found}. Harvester does not see such a volume; hotplug with --persist, or stop the VM before growing it.`;
}

export function stopVmsAdvice(runningVms: string[]): string {
  // Only in findings listed after an offline verdict (voe check): nothing to stop.
  if (runningVms.length === 0) return 'expand offline (no running VM uses it)';
  const noun = runningVms.length === 1 ? 'VM' : 'VMs';
  return `stop ${noun} ${listVms(runningVms)} and expand offline`;
}

/** Cuts a warning to the 120 characters the API server keeps. */
export function warning(text: string): string {
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
}
