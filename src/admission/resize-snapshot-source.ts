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

/**
 * Where the admission path reads cluster state: caches only, never the API server.
 * Locations (KubeVirt CR, Longhorn namespace, Setting names) come from AdmissionOptions.
 */
export interface ResizeSnapshotSource {
  /**
   * False until every cache below has loaded, and while one of them does not follow the API server
   * (its list or watch failed since); the validators then refuse with 500.
   */
  synced(): boolean;
  /** The caches that had loaded but do not follow the API server now: `<resource> (since <time>: <why>)`. */
  outOfSync(): string[];
  getPvc(namespace: string, name: string): PersistentVolumeClaim | undefined;
  getStorageClass(name: string): StorageClass | undefined;
  /** Every VM (running or not) whose template volumes or volumeClaimTemplates use the PVC. */
  vmsUsingPvc(namespace: string, name: string): VirtualMachine[];
  /** Every VMI (running or not) whose spec volumes or status.volumeStatus name the PVC. */
  vmisUsingPvc(namespace: string, name: string): VirtualMachineInstance[];
  getKubeVirt(): KubeVirt | undefined;
  getSetting(name: string): HarvesterSetting | undefined;
  /** Longhorn Volume CR by name (Longhorn names the volumes it provisions after their PV). */
  getLonghornVolume(name: string): LonghornVolume | undefined;
  /** Longhorn Volume CRs whose status.kubernetesStatus.pvName is the PV (how a statically provisioned PV's volume is found). */
  getLonghornVolumesOfPv(pvName: string): LonghornVolume[];
  /** Longhorn Engine CRs labelled longhornvolume=<volume>. */
  getLonghornEngines(volume: string): LonghornEngine[];
  getLonghornSetting(name: string): LonghornSetting | undefined;
  /**
   * False when this source holds no Longhorn objects at all (not watched or not read: `--longhorn
   * off`, longhorn.io/v1beta2 not served when `voe serve --longhorn auto` started, or Longhorn
   * Volumes not served now), as opposed to Longhorn objects that were read and are missing.
   */
  readonly readsLonghorn: boolean;
}
