import type { DecisionValue } from './decision.js';
import type { ExpandValidation, SettingInvalidError } from '../settings/index.js';
import type {
  KubeVirt,
  LonghornEngine,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../model/index.js';

/** The csi-online-expand-validation Setting as the snapshot saw it. */
export type ExpandSettingState =
  | { state: 'parsed'; validation: ExpandValidation }
  | { state: 'missing' }
  | { state: 'invalid'; error: SettingInvalidError };

/** Longhorn state of the PVC's volume (only read when the provisioner is Longhorn). */
export interface LonghornSnapshot {
  /** The PV's Volume CR (named after the PV, else recorded as bound to it), if any. */
  volume?: LonghornVolume | null;
  /** When no Volume is named after the PV and several record it: their names (none is taken). */
  volumesRecordingPv?: string[];
  /** Engine CRs labelled longhornvolume=<that volume's name> (two during a live migration). */
  engines?: LonghornEngine[];
  /** `value` of the Setting current-longhorn-version ("" when it has none), undefined when the Setting was not found. */
  version?: string;
  /**
   * False when Longhorn objects were not read at all (`--longhorn off`, or `voe serve --longhorn
   * auto` on a cluster that did not serve longhorn.io/v1beta2 when it started): volume, engines
   * and version are then unknown, not missing. Absent means read.
   */
  read?: boolean;
}

/** Everything decideResize needs, as plain objects read from caches (or list calls). */
export interface ResizeSnapshot {
  /** The PVC before the update; absent or null for a CREATE. */
  oldPvc?: PersistentVolumeClaim | null;
  /** The PVC as it would be stored. */
  pvc: PersistentVolumeClaim;
  /** The PVC's StorageClass (spec.storageClassName, as Harvester reads it), null when missing. */
  storageClass?: StorageClass | null;
  /**
   * The StorageClass Kubernetes takes as the PVC's (claimClassName: the beta storage-class
   * annotation before spec.storageClassName) when that is another class than `storageClass`'s;
   * absent otherwise. Its provisioner is judged too (provisionersToJudge).
   */
  claimStorageClass?: StorageClass | null;
  /** Every VM using the PVC (template volumes or volumeClaimTemplates), running or not. */
  vms: VirtualMachine[];
  /**
   * Every VMI naming the PVC (spec volumes or status.volumeStatus), running or not; absent: none.
   * A running one uses the PVC even when its VM's spec does not (a volume hotplugged without
   * --persist, or removed from the VM's spec while it runs).
   */
  vmis?: VirtualMachineInstance[];
  /** The KubeVirt CR at the configured location, null when missing. */
  kubeVirt?: KubeVirt | null;
  expandSetting: ExpandSettingState;
  longhorn?: LonghornSnapshot;
}

/** 'api-server': what Kubernetes checks before any webhook (only `voe check` reports it). */
export type ResizeCheck =
  | 'api-server'
  | 'resize'
  | 'vm'
  | 'expand-disks'
  | 'hotplug'
  | 'provisioner'
  | 'longhorn'
  | 'quota';

/** One reason found while judging a resize; `voe check` prints them all. */
export interface ResizeFinding {
  check: ResizeCheck;
  /** pass: no objection; refuse: a policy refusal (422); error: an internal error (500); skip: not applicable. */
  outcome: 'pass' | 'refuse' | 'error' | 'skip';
  /** Stable label, e.g. "gate-missing" (the verdict's decision when this finding decides). */
  decision: DecisionValue;
  message: string;
}

/** The verdict plus every finding. */
export interface ResizeDecision {
  allowed: boolean;
  /** 200 when allowed, 422 for a policy refusal, 500 for an internal error. */
  code: number;
  /** Kubernetes StatusReason: "Invalid" (422) or "InternalError" (500); absent when allowed. */
  reason?: 'Invalid' | 'InternalError';
  /** The refusal shown to the user, or a one-line explanation when allowed. */
  message: string;
  /** Admission warnings (each <= 120 characters). */
  warnings: string[];
  /** Stable label of the deciding finding, e.g. "allowed", "allowed-offline", "gate-missing". */
  decision: DecisionValue;
  /** Every finding, in the decision order. */
  findings: ResizeFinding[];
}
