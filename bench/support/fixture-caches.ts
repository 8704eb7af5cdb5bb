/**
 * The real admission caches for the webhook benchmark, warm: buildAdmissionCaches, which gives
 * `voe check` the caches `voe serve`'s informers hold (MemoryCache: the same Cache shape, indexes,
 * lean VMIs and objects without managedFields). Longhorn PVCs get their Longhorn Volume (v1 data
 * engine) so the Longhorn branch reads a CR as it does on Harvester.
 */
import type { HarvesterSetting } from '../../src/settings/index.js';
import { buildAdmissionCaches } from '../../src/host-cache/build-admission-caches.js';
import type {
  KubeVirt,
  LonghornSetting,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../../src/model/index.js';
import type { AdmissionCaches } from '../../src/host-cache/cache-snapshot-source.js';
import type { Fixture } from './cluster-fixtures.js';

export function fixtureCaches(fixture: Fixture): AdmissionCaches {
  const pvcs = fixture.pvcs as PersistentVolumeClaim[];
  const longhornVolumes: LonghornVolume[] = pvcs
    .filter(
      (pvc) =>
        pvc.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'] ===
          'driver.longhorn.io' && pvc.spec?.volumeName,
    )
    .map(
      (pvc) =>
        ({
          apiVersion: 'longhorn.io/v1beta2',
          kind: 'Volume',
          metadata: { name: pvc.spec!.volumeName!, namespace: 'longhorn-system' },
          spec: {
            dataEngine: 'v1',
            frontend: 'blockdev',
            size: String(pvc.spec?.resources?.requests?.storage ?? ''),
          },
        }) as LonghornVolume,
    );
  return buildAdmissionCaches({
    pvcs,
    storageClasses: fixture.storageClasses as StorageClass[],
    vms: fixture.vms as VirtualMachine[],
    vmis: fixture.vmis as VirtualMachineInstance[],
    kubeVirt: fixture.kubevirt as KubeVirt,
    setting: fixture.setting as HarvesterSetting,
    longhornVolumes,
    longhornEngines: [],
    longhornSetting: {
      metadata: { name: 'current-longhorn-version', namespace: 'longhorn-system' },
      value: 'v1.10.1',
    } as LonghornSetting,
  });
}
