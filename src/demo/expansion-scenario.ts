/**
 * Harvester's admission test plan as a cluster (docs/demo.md: Longhorn v1 and v2 root disks, an NFS
 * disk, TopoLVM volumes hotplugged in Block and Filesystem mode, plus a stopped VM), staged the
 * way the real components write it: storage classes, bound PVCs with their PVs, KubeVirt VMs
 * with their status, the KubeVirt CR, the csi-online-expand-validation Setting (nothing
 * validated beyond Harvester's default) and Longhorn's Volumes, Engines and version Setting.
 */
import type { PersistentVolumeClaim, VirtualMachine } from '../model/index.js';
import type { StagedCluster } from './staged-cluster.js';
import {
  harvesterSetting,
  kubeVirt,
  longhornEngine,
  longhornImageClass,
  longhornVersion,
  longhornVolume,
  pvc,
  storageClass,
  vm,
} from './staged-objects.js';

/** The PVC names of the scenario (all in namespace `default`) and the VMs using them. */
export const SCENARIO = {
  namespace: 'default',
  /** vm1's Longhorn v1 Block root disk. */
  longhornV1Disk: 'vm1-disk-0-kq8zt',
  /** vm2's disk on a Longhorn v2 data engine StorageClass. */
  longhornV2Disk: 'vm2-disk-0-v2abc',
  /** vm3's NFS Filesystem disk. */
  nfsDisk: 'vm3-disk-0-nfs01',
  /** A TopoLVM Block volume hotplugged into vm4. */
  topolvmBlockHotplug: 'data-topolvm-block',
  /** A TopoLVM Filesystem volume hotplugged into vm4. */
  topolvmFilesystemHotplug: 'data-topolvm-fs',
  /** vm5's NFS disk; vm5 is stopped. */
  stoppedVmDisk: 'vm5-disk-0-stop1',
  /** Every claim starts at this size. */
  initialSize: '10Gi',
  /** Longhorn's current-longhorn-version Setting at the start. */
  longhornVersion: 'v1.9.1',
} as const;

export const pvNameOf = (claim: string): string => `pvc-${claim}`;

/** The claims of the scenario, as created (not yet bound). */
export function scenarioClaims(): PersistentVolumeClaim[] {
  const s = SCENARIO;
  return [
    pvc(s.longhornV1Disk, { volumeName: pvNameOf(s.longhornV1Disk) }),
    pvc(s.longhornV2Disk, { className: 'longhorn-v2', volumeName: pvNameOf(s.longhornV2Disk) }),
    pvc(s.nfsDisk, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
      volumeName: pvNameOf(s.nfsDisk),
    }),
    pvc(s.topolvmBlockHotplug, {
      provisioner: 'topolvm.io',
      className: 'topolvm-provisioner',
      volumeMode: 'Block',
      volumeName: pvNameOf(s.topolvmBlockHotplug),
    }),
    pvc(s.topolvmFilesystemHotplug, {
      provisioner: 'topolvm.io',
      className: 'topolvm-provisioner',
      volumeMode: 'Filesystem',
      volumeName: pvNameOf(s.topolvmFilesystemHotplug),
    }),
    pvc(s.stoppedVmDisk, {
      provisioner: 'nfs.csi.k8s.io',
      className: 'nfs-csi',
      volumeMode: 'Filesystem',
      volumeName: pvNameOf(s.stoppedVmDisk),
    }),
  ];
}

/** A VM volume naming a claim (hotplugged as `virtctl addvolume --persist` writes it). */
function disk(claimName: string, hotpluggable = false): Record<string, unknown> {
  return {
    name: claimName,
    persistentVolumeClaim: { claimName, ...(hotpluggable ? { hotpluggable: true } : {}) },
  };
}

/** The VMs of the scenario: vm1 to vm4 running, vm5 stopped. */
export function scenarioVms(): VirtualMachine[] {
  const s = SCENARIO;
  return [
    vm('vm1'),
    vm('vm2', { volumes: [{ ...disk(s.longhornV2Disk), name: 'disk-0' }], templates: [] }),
    vm('vm3', { volumes: [{ ...disk(s.nfsDisk), name: 'disk-0' }], templates: [] }),
    vm('vm4', {
      volumes: [
        { ...disk('vm4-disk-0-root1'), name: 'disk-0' },
        disk(s.topolvmBlockHotplug, true),
        disk(s.topolvmFilesystemHotplug, true),
      ],
      templates: [],
    }),
    vm('vm5', {
      status: 'Stopped',
      volumes: [{ ...disk(s.stoppedVmDisk), name: 'disk-0' }],
      templates: [],
    }),
  ];
}

/** Writes the whole scenario into the cluster (which must serve the KubeVirt, Harvester and Longhorn CRDs). */
export async function stageExpansionScenario(cluster: StagedCluster): Promise<void> {
  const s = SCENARIO;
  const claims = scenarioClaims();
  await cluster.apply({
    storageClasses: [
      longhornImageClass(),
      storageClass('longhorn-v2', 'driver.longhorn.io', {
        dataEngine: 'v2',
        numberOfReplicas: '3',
        migratable: 'true',
      }),
      storageClass('nfs-csi', 'nfs.csi.k8s.io', {
        server: 'nfs-server.default.svc.cluster.local',
        share: '/',
      }),
      storageClass('topolvm-provisioner', 'topolvm.io', { 'csi.storage.k8s.io/fstype': 'xfs' }),
    ],
    pvcs: claims,
    vms: scenarioVms(),
    kubeVirts: [kubeVirt()],
    settings: [harvesterSetting('')],
    longhornVolumes: [
      longhornVolume({ name: pvNameOf(s.longhornV1Disk) }),
      longhornVolume({ name: pvNameOf(s.longhornV2Disk), dataEngine: 'v2' }),
    ],
    longhornEngines: [
      longhornEngine({ volume: pvNameOf(s.longhornV1Disk) }),
      longhornEngine({ volume: pvNameOf(s.longhornV2Disk), dataEngine: 'v2' }),
    ],
    longhornSettings: [longhornVersion(s.longhornVersion)],
  });
  await cluster.bindClaims(claims);
}
