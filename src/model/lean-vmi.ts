import type { VirtualMachineInstance, VmiVolumeStatus, VmVolume } from './kubevirt-objects.js';
import { claimNameOf } from './vm-claims.js';

/**
 * The part of a VMI the admission path reads, for its cache: name, namespace, resourceVersion,
 * the controller ownerReference of a VM (apiVersion, kind, name, uid), the PVC and DataVolume volumes of the spec
 * (name, claim, hotpluggable), the phase, and of status.volumeStatus the entries that say more
 * than the spec: hotplugged ones (`hotplugVolume: {}`) and claims the spec no longer names (a
 * volume being unplugged). A running VMI's JSON is several KiB (domain, interfaces, conditions,
 * guest OS info, managedFields); this keeps a few hundred bytes, and claimNamesOfVmi,
 * vmiHotplugs, isVmiRunning and vmNameOfVmi answer the same for it. Pure; the object is not changed.
 */
export function leanVmi(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const metadata = vmi.metadata ?? {};
  const owner = metadata.ownerReferences?.find(
    (reference) => reference.controller === true && reference.kind === 'VirtualMachine',
  );
  const volumes: VmVolume[] = [];
  for (const volume of vmi.spec?.volumes ?? []) {
    const claim = volume.persistentVolumeClaim;
    const dataVolume = volume.dataVolume;
    if (claim) {
      volumes.push({
        name: volume.name,
        persistentVolumeClaim: {
          claimName: claim.claimName,
          ...(claim.hotpluggable === true ? { hotpluggable: true } : {}),
        },
      });
    } else if (dataVolume) {
      volumes.push({
        name: volume.name,
        dataVolume: {
          name: dataVolume.name,
          ...(dataVolume.hotpluggable === true ? { hotpluggable: true } : {}),
        },
      });
    }
  }
  const claimed = new Set(volumes.map(claimNameOf));
  const volumeStatus: VmiVolumeStatus[] = [];
  for (const status of vmi.status?.volumeStatus ?? []) {
    const claimName = status.persistentVolumeClaimInfo?.claimName;
    const hotplugged = status.hotplugVolume !== undefined && status.hotplugVolume !== null;
    if (!hotplugged && (!claimName || claimed.has(claimName))) continue;
    volumeStatus.push({
      name: status.name,
      ...(claimName ? { persistentVolumeClaimInfo: { claimName } } : {}),
      ...(hotplugged ? { hotplugVolume: {} } : {}),
    });
  }
  return {
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      resourceVersion: metadata.resourceVersion,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion,
                kind: owner.kind,
                name: owner.name,
                uid: owner.uid,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: { volumes },
    status: { phase: vmi.status?.phase, ...(volumeStatus.length > 0 ? { volumeStatus } : {}) },
  };
}
