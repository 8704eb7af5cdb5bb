/**
 * Real-shaped Harvester objects for `voe demo` and the admission tests, as the real components
 * write them (Harvester's VM controller and settings controller, KubeVirt's operator and
 * virt-controller, Longhorn's manager, kube-controller-manager's PV binder).
 */
import type {
  CsiDriver, KubeVirt, LonghornEngine, LonghornSetting, LonghornVolume, PersistentVolumeClaim, StorageClass, VirtualMachine,
} from '../webhook/index.js';
import type { HarvesterSetting } from '../settings/index.js';

export const NS = 'default';

export function pvc(name: string, options: {
  storage?: string; className?: string; provisioner?: string; volumeMode?: 'Block' | 'Filesystem' | null;
  volumeName?: string; annotations?: Record<string, string>; namespace?: string;
} = {}): PersistentVolumeClaim {
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

export function storageClass(name: string, provisioner: string, parameters: Record<string, string> = {}): StorageClass {
  return {
    metadata: { name, annotations: {} },
    provisioner,
    parameters,
    allowVolumeExpansion: true,
    ...({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }),
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

export function templateEntry(name: string, storage: string, className = 'longhorn-image-7r2k9', volumeMode = 'Block'): PersistentVolumeClaim {
  return {
    metadata: { name, annotations: { 'harvesterhci.io/imageId': 'default/image-7r2k9' } },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage } }, volumeMode, storageClassName: className },
  };
}

export function vm(name: string, options: {
  status?: string | null; volumes?: Array<Record<string, unknown>>; templates?: PersistentVolumeClaim[]; namespace?: string;
} = {}): VirtualMachine {
  const volumes = options.volumes ?? [{ name: 'disk-0', persistentVolumeClaim: { claimName: `${name}-disk-0-kq8zt` } }];
  const templates = options.templates ?? [templateEntry(`${name}-disk-0-kq8zt`, '10Gi')];
  const annotations: Record<string, string> = {
    'harvesterhci.io/vmRunStrategy': 'RerunOnFailure',
    'network.harvesterhci.io/ips': '[]',
  };
  if (templates.length > 0) annotations['harvesterhci.io/volumeClaimTemplates'] = JSON.stringify(templates);
  const object: VirtualMachine = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachine',
    metadata: {
      name,
      namespace: options.namespace ?? NS,
      uid: '0c7e1a52-3f4b-4d8e-9a61-7e2f3b4c5d6e',
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
            devices: { disks: volumes.map((volume, index) => ({ name: volume['name'], disk: { bus: index === 0 ? 'virtio' : 'scsi' } })) },
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
    object.status = options.status === 'Stopped'
      ? { printableStatus: 'Stopped', conditions: [{ type: 'Ready', status: 'False', reason: 'VMINotExists' }] }
      : { ...object.status, printableStatus: options.status };
  }
  return object;
}

export function kubeVirt(options: { gates?: string[]; disabled?: string[]; version?: string } = {}): KubeVirt {
  const developerConfiguration: { featureGates: string[]; disabledFeatureGates?: string[] } = {
    featureGates: options.gates ?? ['LiveMigration', 'HotplugVolumes', 'HostDevices', 'GPU', 'CPUManager', 'VMPersistentState', 'ExpandDisks'],
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

export function harvesterSetting(value: string, defaultText = '{"driver.longhorn.io":true}', name = 'csi-online-expand-validation'): HarvesterSetting {
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
export function longhornVolume(options: { dataEngine?: string; frontend?: string; encrypted?: boolean; name?: string; pvName?: string } = {}): LonghornVolume {
  return {
    metadata: {
      name: options.name ?? PV_NAME,
      namespace: 'longhorn-system',
      labels: { longhornvolume: options.name ?? PV_NAME, 'setting.longhorn.io/remove-snapshots-during-filesystem-trim': 'ignored' },
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
      state: 'attached', robustness: 'healthy', currentNodeID: 'harvester-node-0',
      kubernetesStatus: { pvName: options.pvName ?? options.name ?? PV_NAME, pvStatus: 'Bound' },
    },
  };
}

export function longhornEngine(options: { dataEngine?: string; volume?: string; index?: number } = {}): LonghornEngine {
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
    metadata: { name: 'current-longhorn-version', namespace: 'longhorn-system', resourceVersion: '901' },
    value,
    ...({ apiVersion: 'longhorn.io/v1beta2', kind: 'Setting', status: { applied: true } }),
  } as LonghornSetting;
}

export function csiDriver(name: string): CsiDriver {
  return {
    metadata: { name },
    spec: { attachRequired: true, fsGroupPolicy: 'ReadWriteOnceWithFSType', podInfoOnMount: true, volumeLifecycleModes: ['Persistent'] },
  };
}
