import type { HarvesterSetting } from '../settings/index.js';
import type {
  KubeVirt,
  LonghornEngine,
  LonghornSetting,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../model/index.js';

/** The objects of a scenario, by kind (what StagedCluster.apply writes and the tests' memory caches hold). */
export interface ClusterState {
  pvcs?: PersistentVolumeClaim[];
  storageClasses?: StorageClass[];
  vms?: VirtualMachine[];
  vmis?: VirtualMachineInstance[];
  kubeVirts?: KubeVirt[];
  settings?: HarvesterSetting[];
  longhornVolumes?: LonghornVolume[];
  longhornEngines?: LonghornEngine[];
  longhornSettings?: LonghornSetting[];
}
