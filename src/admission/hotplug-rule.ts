import { harvesterHotplugMessage, instanceOnlyNote, listVms } from './resize-messages.js';
import type { ResizeCase, RuleJudgement } from './resize-case.js';
import { Decision } from './decision.js';

/**
 * Step 3: not a hotplugged Filesystem volume (a hotplug pod may no longer mount it, so the VM
 * would never see it grow). Hotplugged by a VM's spec (running or not, as Harvester reads it) or
 * on a running VMI only.
 */
export function hotplugRule({ pvcKey, users, volumeMode, stopAdvice }: ResizeCase): RuleJudgement {
  const { hotplugging } = users;
  if (volumeMode !== 'Filesystem' || hotplugging.length === 0) {
    return {
      finding: {
        check: 'hotplug',
        outcome: 'pass',
        decision: Decision.Allowed,
        message:
          hotplugging.length > 0
            ? `Hotplugged volume in ${volumeMode} mode: supported.`
            : `Not hotplugged (volumeMode ${volumeMode}).`,
      },
    };
  }
  const instanceOnly = users.hotpluggingInstanceOnly;
  return {
    finding: {
      check: 'hotplug',
      outcome: 'refuse',
      decision: Decision.HotplugFilesystem,
      message:
        `${harvesterHotplugMessage(pvcKey)}. It is hotplugged into ${listVms(hotplugging)}` +
        (instanceOnly.length > 0
          ? ` (${instanceOnlyNote(instanceOnly, { sentence: false })})`
          : '') +
        ', and a hotplugged Filesystem volume may no longer be mounted by any hotplug pod, so it would never grow inside the VM. ' +
        `Use a Block-mode volume for hotplug${instanceOnly.length > 0 ? " (added with virtctl addvolume --persist, so that the VM's spec names it)" : ''}, ` +
        `or ${stopAdvice}.`,
    },
  };
}
