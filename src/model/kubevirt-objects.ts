/**
 * The fields of KubeVirt objects that the components read, typed structurally like
 * kubernetes-objects.ts (every field optional: real objects omit what is unset).
 */
import type { ObjectMeta } from './kubernetes-objects.js';

export interface VmVolume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; hotpluggable?: boolean; readOnly?: boolean };
  dataVolume?: { name?: string; hotpluggable?: boolean };
  [source: string]: unknown;
}

export interface VirtualMachine {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    runStrategy?: string;
    running?: boolean;
    template?: { spec?: { volumes?: VmVolume[]; [key: string]: unknown } };
    [key: string]: unknown;
  };
  status?: { printableStatus?: string; ready?: boolean; [key: string]: unknown };
}

/**
 * What virt-controller copies from the PVC into the VMI's volume status
 * (`PersistentVolumeClaimInfo` in kubevirt.io/api core/v1 types.go).
 */
export interface PvcInfo {
  claimName?: string;
  accessModes?: string[];
  volumeMode?: string;
  capacity?: Record<string, unknown>;
  requests?: Record<string, unknown>;
  filesystemOverhead?: string;
  preallocated?: boolean;
  [key: string]: unknown;
}

export interface VmiVolumeStatus {
  name?: string;
  target?: string;
  phase?: string;
  reason?: string;
  message?: string;
  /** Set for a hotplugged volume (attachPodName, attachPodUID). */
  hotplugVolume?: { attachPodName?: string; attachPodUID?: string; [key: string]: unknown };
  persistentVolumeClaimInfo?: PvcInfo;
  [key: string]: unknown;
}

/** KubeVirt's VirtualMachineInstanceMigrationState (the fields the tracker reads). */
export interface MigrationState {
  sourcePod?: string;
  targetPod?: string;
  sourceNode?: string;
  targetNode?: string;
  completed?: boolean;
  failed?: boolean;
  startTimestamp?: string;
  endTimestamp?: string;
  [key: string]: unknown;
}

/** A VMI disk (spec.domain.devices.disks[]): the volume it shows, its serial and bus. */
export interface VmiDisk {
  /** The volume's name. */
  name?: string;
  serial?: string;
  disk?: { bus?: string; [key: string]: unknown };
  lun?: { bus?: string; [key: string]: unknown };
  cdrom?: { bus?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** A VMI condition (AgentConnected, Ready...). */
export interface VmiCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  [key: string]: unknown;
}

/**
 * kubevirt.io/v1 VirtualMachineInstance: the running instance of a VM (same name, a controller
 * ownerReference to it), or a standalone one. `virtctl addvolume` without `--persist` (or the
 * VMI's `addvolume` subresource) adds a hotplugged volume to the VMI's spec only
 * (`persistentVolumeClaim.hotpluggable` / `dataVolume.hotpluggable` true); virt-controller records
 * each volume's state in `status.volumeStatus` (`hotplugVolume` for hotplugged ones,
 * `persistentVolumeClaimInfo.claimName` since KubeVirt v1.3).
 */
export interface VirtualMachineInstance {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    volumes?: VmVolume[];
    domain?: { devices?: { disks?: VmiDisk[]; [key: string]: unknown }; [key: string]: unknown };
    [key: string]: unknown;
  };
  status?: {
    conditions?: VmiCondition[];
    /** Pending, Scheduling, Scheduled, Running, Succeeded, Failed, Unknown. */
    phase?: string;
    nodeName?: string;
    /** Pod uid -> node name of the virt-launcher pods that run (or ran) the domain. */
    activePods?: Record<string, string>;
    migrationState?: MigrationState;
    volumeStatus?: VmiVolumeStatus[];
    /** The guest agent's guest-get-osinfo (id "mswindows" on Windows), when an agent answered. */
    guestOSInfo?: { id?: string; name?: string; prettyName?: string; [key: string]: unknown };
    [key: string]: unknown;
  };
}

export interface KubeVirt {
  metadata?: ObjectMeta;
  spec?: {
    configuration?: {
      developerConfiguration?: { featureGates?: string[]; disabledFeatureGates?: string[] };
      [key: string]: unknown;
    };
    [key: string]: unknown;
  };
  status?: { observedKubeVirtVersion?: string; phase?: string; [key: string]: unknown };
}
