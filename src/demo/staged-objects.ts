/**
 * Real-shaped Harvester objects for `voe demo` and the admission tests, as the real components
 * write them (Harvester's VM controller and settings controller, KubeVirt's operator and
 * virt-controller, Longhorn's manager, kube-controller-manager's PV binder).
 */
import type {
  CsiDriver,
  KubeVirt,
  LonghornEngine,
  LonghornSetting,
  LonghornVolume,
  PersistentVolumeClaim,
  StorageClass,
  VirtualMachine,
  VirtualMachineInstance,
} from '../model/index.js';
import type { HarvesterSetting } from '../settings/index.js';

export const NS = 'default';

export function pvc(
  name: string,
  options: {
    storage?: string;
    className?: string;
    provisioner?: string;
    volumeMode?: 'Block' | 'Filesystem' | null;
    volumeName?: string;
    annotations?: Record<string, string>;
    namespace?: string;
  } = {},
): PersistentVolumeClaim {
  const provisioner = options.provisioner ?? 'driver.longhorn.io';
  const storage = options.storage ?? '10Gi';
  const object: PersistentVolumeClaim & Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      uid: '4f1c2d8e-7b0a-4c55-9d2e-0a1b2c3d4e5f',
      resourceVersion: '183745',
      annotations: options.annotations ?? {
        'pv.kubernetes.io/bind-completed': 'yes',
        'pv.kubernetes.io/bound-by-controller': 'yes',
        'volume.beta.kubernetes.io/storage-provisioner': provisioner,
        'volume.kubernetes.io/storage-provisioner': provisioner,
      },
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage } },
      storageClassName: options.className ?? 'longhorn-image-7r2k9',
      volumeName: options.volumeName ?? 'pvc-4f1c2d8e-7b0a-4c55-9d2e-0a1b2c3d4e5f',
    },
    status: { phase: 'Bound', accessModes: ['ReadWriteMany'], capacity: { storage } },
  };
  (object.metadata as Record<string, unknown>)['finalizers'] = ['kubernetes.io/pvc-protection'];
  if (options.volumeMode !== null) object.spec!.volumeMode = options.volumeMode ?? 'Block';
  return object;
}

/** The same PVC with a different storage request (what the user's update carries). */
export function resized(claim: PersistentVolumeClaim, storage: string): PersistentVolumeClaim {
  return { ...claim, spec: { ...claim.spec, resources: { requests: { storage } } } };
}

export function storageClass(
  name: string,
  provisioner: string,
  parameters: Record<string, string> = {},
): StorageClass {
  return {
    metadata: { name, annotations: {} },
    provisioner,
    parameters,
    allowVolumeExpansion: true,
    ...{
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    },
  } as StorageClass;
}

/** Harvester's per-image Longhorn StorageClass (v1 data engine unless parameters say otherwise). */
export function longhornImageClass(parameters: Record<string, string> = {}): StorageClass {
  return storageClass('longhorn-image-7r2k9', 'driver.longhorn.io', {
    backingImage: 'default-image-7r2k9',
    backingImageDataSourceType: 'download',
    backingImageDataSourceParameters: '{"url":"http://images.example/focal.img"}',
    migratable: 'true',
    numberOfReplicas: '3',
    staleReplicaTimeout: '30',
    ...parameters,
  });
}

export function templateEntry(
  name: string,
  storage: string,
  className = 'longhorn-image-7r2k9',
  volumeMode = 'Block',
): PersistentVolumeClaim {
  return {
    metadata: { name, annotations: { 'harvesterhci.io/imageId': 'default/image-7r2k9' } },
    spec: {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage } },
      volumeMode,
      storageClassName: className,
    },
  };
}

/** The uid of every staged VM (its VMI's ownerReference names it). */
export const VM_UID = '0c7e1a52-3f4b-4d8e-9a61-7e2f3b4c5d6e';

export function vm(
  name: string,
  options: {
    status?: string | null;
    volumes?: Array<Record<string, unknown>>;
    templates?: PersistentVolumeClaim[];
    namespace?: string;
    /** Added to Harvester's annotations (e.g. an opt-in of voe's). */
    annotations?: Record<string, string>;
  } = {},
): VirtualMachine {
  const volumes = options.volumes ?? [
    { name: 'disk-0', persistentVolumeClaim: { claimName: `${name}-disk-0-kq8zt` } },
  ];
  const templates = options.templates ?? [templateEntry(`${name}-disk-0-kq8zt`, '10Gi')];
  const annotations: Record<string, string> = {
    'harvesterhci.io/vmRunStrategy': 'RerunOnFailure',
    'network.harvesterhci.io/ips': '[]',
    ...options.annotations,
  };
  if (templates.length > 0)
    annotations['harvesterhci.io/volumeClaimTemplates'] = JSON.stringify(templates);
  const object: VirtualMachine = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      uid: VM_UID,
      resourceVersion: '183102',
      labels: { 'harvesterhci.io/creator': 'harvester', 'harvesterhci.io/os': 'ubuntu' },
      annotations,
    },
    spec: {
      runStrategy: 'RerunOnFailure',
      template: {
        spec: {
          domain: {
            cpu: { cores: 2, sockets: 1, threads: 1 },
            devices: {
              disks: volumes.map((volume, index) => ({
                name: volume['name'],
                disk: { bus: index === 0 ? 'virtio' : 'scsi' },
              })),
            },
            resources: { limits: { cpu: '2', memory: '4Gi' } },
          },
          evictionStrategy: 'LiveMigrateIfPossible',
          volumes,
        },
      },
    },
    status: { created: true, ready: true, printableStatus: 'Running' },
  };
  if (options.status === null) object.status = {};
  else if (options.status !== undefined) {
    object.status =
      options.status === 'Stopped'
        ? {
            printableStatus: 'Stopped',
            conditions: [{ type: 'Ready', status: 'False', reason: 'VMINotExists' }],
          }
        : { ...object.status, printableStatus: options.status };
  }
  return object;
}

/**
 * The VMI of VM `name` as KubeVirt's virt-controller and virt-handler write it on Harvester
 * (KubeVirt v1.5): a controller ownerReference to the VM (none with `standalone`), the domain,
 * networks and volumes in spec, and a status with conditions, guest OS info, interfaces and one
 * volumeStatus entry per volume. `volumes` default to the VM's root disk; a volume with
 * `hotpluggable: true` (what `virtctl addvolume` writes, into the VMI's spec only without
 * `--persist`) is on the SCSI bus, Ready, with its hp-volume attachment pod in
 * `volumeStatus[].hotplugVolume`. `phase` Running unless told. A claim's volume is Block, with no
 * filesystem overhead, unless `volumeModes` names it Filesystem (overhead 0.055, CDI's default).
 */
export function vmi(
  name: string,
  options: {
    phase?: string;
    volumes?: Array<Record<string, unknown>>;
    namespace?: string;
    standalone?: boolean;
    /** The volumeMode of claims, by claim name (Block when not named). */
    volumeModes?: Record<string, 'Block' | 'Filesystem'>;
  } = {},
): VirtualMachineInstance {
  const namespace = options.namespace ?? NS;
  const volumes = options.volumes ?? [
    { name: 'disk-0', persistentVolumeClaim: { claimName: `${name}-disk-0-kq8zt` } },
  ];
  const targets = diskTargets(volumes);
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: vmiMetadata(name, namespace, options.standalone === true),
    spec: vmiSpec(volumes, targets),
    status: vmiStatus(volumes, targets, options.phase ?? 'Running', options.volumeModes ?? {}),
  };
}

/** A VMI's metadata as virt-controller writes it: owned by VM `name` unless `standalone`. */
function vmiMetadata(
  name: string,
  namespace: string,
  standalone: boolean,
): VirtualMachineInstance['metadata'] {
  return {
    name,
    namespace,
    uid: '7d3e9b10-2c4f-4a6e-8b1d-5f0e9c8a7b6d',
    resourceVersion: '184220',
    annotations: {
      'harvesterhci.io/sshNames': '[]',
      'kubevirt.io/latest-observed-api-version': 'v1',
      'kubevirt.io/storage-observed-api-version': 'v1',
      'kubevirt.io/vm-generation': '2',
    },
    labels: { 'harvesterhci.io/vmName': name, 'kubevirt.io/nodeName': 'harvester-node-0' },
    ...(standalone
      ? {}
      : {
          ownerReferences: [
            {
              apiVersion: 'kubevirt.io/v1',
              kind: 'VirtualMachine',
              name,
              uid: VM_UID,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        }),
    ...{
      finalizers: [
        'kubevirt.io/virtualMachineControllerFinalize',
        'foregroundDeleteVirtualMachine',
      ],
    },
  };
}

/** A VMI's spec: the VM's domain, its pod network, and `volumes` on the disks of `targets`. */
function vmiSpec(
  volumes: Array<Record<string, unknown>>,
  targets: string[],
): VirtualMachineInstance['spec'] {
  return {
    architecture: 'amd64',
    domain: {
      cpu: { cores: 2, sockets: 1, threads: 1, model: 'host-model', maxSockets: 4 },
      devices: {
        disks: volumes.map((volume, index) => ({
          name: volume['name'] as string | undefined,
          disk: { bus: targets[index]!.startsWith('sd') ? 'scsi' : 'virtio' },
          ...(volumeSource(volume)?.hotpluggable === true
            ? { serial: volume['name'] as string | undefined }
            : {}),
        })),
        interfaces: [
          { name: 'default', masquerade: {}, model: 'virtio', macAddress: '52:54:00:3c:1a:7e' },
        ],
      },
      features: { acpi: { enabled: true } },
      firmware: {
        uuid: 'b5d6f3c2-9e1a-5d4b-8c7f-2a3e4d5c6b7a',
        serial: '3f2e1d0c-b9a8-4776-8554-433221100fed',
      },
      machine: { type: 'q35' },
      memory: { guest: '3996Mi' },
      resources: {
        limits: { cpu: '2', memory: '4Gi' },
        requests: { cpu: '125m', memory: '2730Mi' },
      },
    },
    evictionStrategy: 'LiveMigrateIfPossible',
    networks: [{ name: 'default', pod: {} }],
    terminationGracePeriodSeconds: 120,
    volumes,
  };
}

/**
 * A running VMI's status as virt-handler writes it: conditions, guest OS info, interfaces, and
 * one volumeStatus entry per volume.
 */
function vmiStatus(
  volumes: Array<Record<string, unknown>>,
  targets: string[],
  phase: string,
  volumeModes: Record<string, 'Block' | 'Filesystem'>,
): VirtualMachineInstance['status'] {
  const time = '2026-11-20T08:15:42Z';
  return {
    activePods: { 'e2a4c6d8-1b3d-4f5a-8c9e-0a2b4c6d8e0f': 'harvester-node-0' },
    conditions: [
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: time },
      { type: 'LiveMigratable', status: 'True', lastProbeTime: null, lastTransitionTime: null },
      { type: 'AgentConnected', status: 'True', lastProbeTime: null, lastTransitionTime: time },
    ],
    currentCPUTopology: { cores: 2, sockets: 1, threads: 1 },
    guestOSInfo: {
      id: 'ubuntu',
      kernelRelease: '5.15.0-126-generic',
      name: 'Ubuntu',
      prettyName: 'Ubuntu 22.04.5 LTS',
      version: '22.04.5 LTS (Jammy Jellyfish)',
      versionId: '22.04',
    },
    interfaces: [
      {
        name: 'default',
        interfaceName: 'enp1s0',
        ipAddress: '10.52.0.91',
        ipAddresses: ['10.52.0.91'],
        mac: '52:54:00:3c:1a:7e',
        infoSource: 'domain, guest-agent',
        queueCount: 1,
      },
    ],
    launcherContainerImageVersion:
      'registry.suse.com/suse/sles/15.6/virt-launcher:1.5.2-150600.5.21.1',
    machine: { type: 'pc-q35-rhel9.4.0' },
    memory: { guestAtBoot: '3996Mi', guestCurrent: '3996Mi', guestRequested: '3996Mi' },
    migrationMethod: 'BlockMigration',
    migrationTransport: 'Unix',
    nodeName: 'harvester-node-0',
    phase,
    phaseTransitionTimestamps: [
      { phase: 'Pending', phaseTransitionTimestamp: time },
      { phase: 'Scheduling', phaseTransitionTimestamp: time },
      { phase: 'Scheduled', phaseTransitionTimestamp: time },
      { phase: 'Running', phaseTransitionTimestamp: time },
    ],
    qosClass: 'Burstable',
    selinuxContext: 'none',
    virtualMachineRevisionName: `revision-start-vm-${VM_UID}-2`,
    volumeStatus: volumes.map((volume, index) =>
      volumeStatusEntry(volume, targets[index]!, volumeModes),
    ),
  };
}

/** The claim (or DataVolume) a VMI volume names, and whether it is hotplugged. */
function volumeSource(
  volume: Record<string, unknown>,
): { claimName?: string; name?: string; hotpluggable?: boolean } | undefined {
  return (volume['persistentVolumeClaim'] ?? volume['dataVolume']) as
    { claimName?: string; name?: string; hotpluggable?: boolean } | undefined;
}

/** Each volume's disk target: hotplugged ones on the SCSI bus (sda, sdb...), the others virtio (vda, vdb...). */
function diskTargets(volumes: Array<Record<string, unknown>>): string[] {
  let scsi = 0;
  let virtio = 0;
  return volumes.map((volume) =>
    volumeSource(volume)?.hotpluggable === true
      ? `sd${String.fromCharCode(97 + scsi++)}`
      : `vd${String.fromCharCode(97 + virtio++)}`,
  );
}

/** virt-handler's volumeStatus entry of one volume: a hotplugged one Ready with its attachment pod; a claim's with its PVC info. */
function volumeStatusEntry(
  volume: Record<string, unknown>,
  target: string,
  volumeModes: Record<string, 'Block' | 'Filesystem'>,
) {
  const claim = volumeSource(volume);
  const claimName = claim?.claimName ?? claim?.name;
  const filesystem = claimName !== undefined && volumeModes[claimName] === 'Filesystem';
  return {
    name: volume['name'] as string,
    target,
    ...(claim?.hotpluggable === true
      ? {
          phase: 'Ready',
          reason: 'VolumeReady',
          message: `Successfully attach hotplugged volume ${String(volume['name'])} to VM`,
          hotplugVolume: {
            attachPodName: 'hp-volume-7kx2q',
            attachPodUID: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
          },
        }
      : {}),
    ...(claimName
      ? {
          persistentVolumeClaimInfo: {
            claimName,
            accessModes: ['ReadWriteMany'],
            volumeMode: filesystem ? 'Filesystem' : 'Block',
            filesystemOverhead: filesystem ? '0.055' : '0',
            capacity: { storage: '10Gi' },
            requests: { storage: '10Gi' },
          },
        }
      : {}),
  };
}

export function kubeVirt(
  options: { gates?: string[]; disabled?: string[]; version?: string } = {},
): KubeVirt {
  const developerConfiguration: { featureGates: string[]; disabledFeatureGates?: string[] } = {
    featureGates: options.gates ?? [
      'LiveMigration',
      'HotplugVolumes',
      'HostDevices',
      'GPU',
      'CPUManager',
      'VMPersistentState',
      'ExpandDisks',
    ],
  };
  if (options.disabled) developerConfiguration.disabledFeatureGates = options.disabled;
  return {
    metadata: { name: 'kubevirt', namespace: 'harvester-system', resourceVersion: '5531' },
    spec: {
      certificateRotateStrategy: {},
      configuration: {
        additionalGuestMemoryOverheadRatio: '1.5',
        developerConfiguration,
        vmStateStorageClass: 'vmstate-persistence',
      },
      customizeComponents: {},
      imagePullPolicy: 'IfNotPresent',
      workloadUpdateStrategy: {},
    },
    status: {
      phase: 'Deployed',
      observedKubeVirtVersion: options.version ?? 'v1.5.2',
      targetKubeVirtVersion: options.version ?? 'v1.5.2',
      operatorVersion: options.version ?? 'v1.5.2',
    },
  };
}

export function harvesterSetting(
  value: string,
  defaultText = '{"driver.longhorn.io":true}',
  name = 'csi-online-expand-validation',
): HarvesterSetting {
  return {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'Setting',
    metadata: { name, resourceVersion: '2231' },
    default: defaultText,
    value,
    status: {},
  };
}

export const PV_NAME = 'pvc-4f1c2d8e-7b0a-4c55-9d2e-0a1b2c3d4e5f';

/**
 * A Longhorn Volume, named after its PV unless `name` says otherwise; `pvName` is the PV Longhorn
 * records it bound to (a statically provisioned PV names the volume in its volumeHandle).
 */
export function longhornVolume(
  options: {
    dataEngine?: string;
    frontend?: string;
    encrypted?: boolean;
    name?: string;
    pvName?: string;
  } = {},
): LonghornVolume {
  return {
    metadata: {
      name: options.name ?? PV_NAME,
      namespace: 'longhorn-system',
      labels: {
        longhornvolume: options.name ?? PV_NAME,
        'setting.longhorn.io/remove-snapshots-during-filesystem-trim': 'ignored',
      },
    },
    spec: {
      accessMode: 'rwx',
      dataEngine: options.dataEngine ?? 'v1',
      frontend: options.frontend ?? 'blockdev',
      encrypted: options.encrypted ?? false,
      migratable: true,
      numberOfReplicas: 3,
      size: '10737418240',
      backingImage: 'default-image-7r2k9',
    },
    status: {
      state: 'attached',
      robustness: 'healthy',
      currentNodeID: 'harvester-node-0',
      kubernetesStatus: { pvName: options.pvName ?? options.name ?? PV_NAME, pvStatus: 'Bound' },
    },
  };
}

export function longhornEngine(
  options: { dataEngine?: string; volume?: string; index?: number } = {},
): LonghornEngine {
  const volume = options.volume ?? PV_NAME;
  return {
    metadata: {
      name: `${volume}-e-${options.index ?? 0}`,
      namespace: 'longhorn-system',
      labels: { longhornnode: 'harvester-node-0', longhornvolume: volume },
    },
    spec: {
      dataEngine: options.dataEngine ?? 'v1',
      volumeName: volume,
      frontend: 'blockdev',
      nodeID: 'harvester-node-0',
      volumeSize: '10737418240',
    },
  };
}

export function longhornVersion(value: string): LonghornSetting {
  return {
    metadata: {
      name: 'current-longhorn-version',
      namespace: 'longhorn-system',
      resourceVersion: '901',
    },
    value,
    ...{ apiVersion: 'longhorn.io/v1beta2', kind: 'Setting', status: { applied: true } },
  } as LonghornSetting;
}

export function csiDriver(name: string): CsiDriver {
  return {
    metadata: { name },
    spec: {
      attachRequired: true,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      podInfoOnMount: true,
      volumeLifecycleModes: ['Persistent'],
    },
  };
}
