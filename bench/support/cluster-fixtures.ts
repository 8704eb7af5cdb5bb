/**
 * Deterministic, realistic Harvester objects for the webhook benchmark: PVCs as the API server
 * stores them (annotations, finalizers, managedFields: about 3 KiB of JSON each) and the VMs that
 * use them (volumes + the harvesterhci.io/volumeClaimTemplates annotation).
 */
export type Obj = Record<string, unknown>;

/** mulberry32: a tiny seeded PRNG so the server process and the load generator build the same objects. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const TIME = '2026-11-20T08:15:42Z';

function managedFields(): Obj[] {
  return [
    { manager: 'harvester', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: {
      'f:metadata': { 'f:annotations': { '.': {}, 'f:harvesterhci.io/imageId': {}, 'f:harvesterhci.io/owned-by': {} } },
      'f:spec': { 'f:accessModes': {}, 'f:resources': { 'f:requests': { '.': {}, 'f:storage': {} } }, 'f:storageClassName': {}, 'f:volumeMode': {} },
    } },
    { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: {
      'f:metadata': { 'f:annotations': { 'f:pv.kubernetes.io/bind-completed': {}, 'f:pv.kubernetes.io/bound-by-controller': {}, 'f:volume.beta.kubernetes.io/storage-provisioner': {}, 'f:volume.kubernetes.io/storage-provisioner': {} } },
      'f:spec': { 'f:volumeName': {} },
    } },
    { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: {
      'f:status': { 'f:accessModes': {}, 'f:capacity': { '.': {}, 'f:storage': {} }, 'f:phase': {} },
    } },
    { manager: 'csi-resizer', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': { 'f:allocatedResources': { '.': {}, 'f:storage': {} } } } },
  ];
}

export interface Fixture { pvcs: Obj[]; vms: Obj[]; storageClasses: Obj[]; kubevirt: Obj; setting: Obj }

export function buildFixture(count: number, seed = 42): Fixture {
  const rand = seededRandom(seed);
  const pvcs: Obj[] = [];
  const vms: Obj[] = [];
  const storageClasses: Obj[] = [
    { metadata: { name: 'harvester-longhorn' }, provisioner: 'driver.longhorn.io', allowVolumeExpansion: true, parameters: { numberOfReplicas: '3', dataEngine: 'v1' } },
    { metadata: { name: 'nfs' }, provisioner: 'nfs.csi.k8s.io', allowVolumeExpansion: true },
    { metadata: { name: 'lvm' }, provisioner: 'lvm.csi.example.com', allowVolumeExpansion: true },
  ];
  for (let i = 0; i < count; i++) {
    const namespace = `tenant-${i % 50}`;
    const vmName = `vm-${i}`;
    const name = `${vmName}-disk-0-${uuid(rand).slice(0, 5)}`;
    const size = `${[10, 20, 40, 80, 100][Math.floor(rand() * 5)]}Gi`;
    const sc = storageClasses[rand() < 0.8 ? 0 : rand() < 0.5 ? 1 : 2]!;
    const provisioner = sc['provisioner'] as string;
    const volumeMode = rand() < 0.9 ? 'Block' : 'Filesystem';
    pvcs.push({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: {
        name, namespace, uid: uuid(rand), resourceVersion: String(100000 + i), creationTimestamp: TIME,
        annotations: {
          'harvesterhci.io/imageId': `default/image-${uuid(rand).slice(0, 5)}`,
          'harvesterhci.io/owned-by': JSON.stringify([{ schema: 'kubevirt.io.virtualmachine', refs: [`${namespace}/${vmName}`] }]),
          'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes',
          'volume.beta.kubernetes.io/storage-provisioner': provisioner, 'volume.kubernetes.io/storage-provisioner': provisioner,
        },
        finalizers: ['kubernetes.io/pvc-protection', 'provisioner.storage.kubernetes.io/cloning-protection'],
        managedFields: managedFields(),
      },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: size } }, storageClassName: sc['metadata'] && (sc['metadata'] as Obj)['name'], volumeMode, volumeName: `pvc-${uuid(rand)}` },
      status: { accessModes: ['ReadWriteMany'], capacity: { storage: size }, phase: 'Bound' },
    });
    const hotpluggable = volumeMode === 'Filesystem' && rand() < 0.3;
    vms.push({
      apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine',
      metadata: {
        name: vmName, namespace, uid: uuid(rand), generation: 3, resourceVersion: String(200000 + i),
        annotations: {
          'harvesterhci.io/volumeClaimTemplates': JSON.stringify([{ metadata: { name, annotations: { 'harvesterhci.io/imageId': 'default/image' } },
            spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: size } }, volumeMode, storageClassName: 'harvester-longhorn' } }]),
          'network.harvesterhci.io/ips': '[]',
        },
        labels: { 'harvesterhci.io/creator': 'harvester', 'harvesterhci.io/os': 'ubuntu' },
      },
      spec: {
        runStrategy: 'RerunOnFailure',
        template: { spec: {
          domain: { cpu: { cores: 2, sockets: 1, threads: 1 }, memory: { guest: '3996Mi' }, devices: { disks: [{ name: 'disk-0', disk: { bus: 'virtio' }, bootOrder: 1 }, { name: 'cloudinitdisk', disk: { bus: 'virtio' } }] } },
          volumes: [
            { name: 'disk-0', persistentVolumeClaim: { claimName: name, ...(hotpluggable ? { hotpluggable: true } : {}) } },
            { name: 'cloudinitdisk', cloudInitNoCloud: { userData: '#cloud-config\npackage_update: true\n' } },
          ],
        } },
      },
      status: { printableStatus: rand() < 0.7 ? 'Running' : 'Stopped', ready: true },
    });
  }
  return {
    pvcs, vms, storageClasses,
    kubevirt: { metadata: { name: 'kubevirt', namespace: 'harvester-system' }, spec: { configuration: { developerConfiguration: { featureGates: ['LiveMigration', 'HotplugVolumes', 'ExpandDisks'] } } } },
    setting: { metadata: { name: 'csi-online-expand-validation' }, default: '{"driver.longhorn.io":true}', value: '{"nfs.csi.k8s.io":true}' },
  };
}

/** An AdmissionReview asking to double `pvc`'s storage request (what the API server sends on a resize). */
export function resizeReview(pvc: Obj, uid: string): Obj {
  const spec = pvc['spec'] as { resources: { requests: { storage: string } } };
  const grown = { ...pvc, spec: { ...spec, resources: { requests: { storage: `${Number.parseInt(spec.resources.requests.storage, 10) * 2}Gi` } } } };
  const meta = pvc['metadata'] as { name: string; namespace: string };
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid, kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' }, resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      requestKind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' }, requestResource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      name: meta.name, namespace: meta.namespace, operation: 'UPDATE',
      userInfo: { username: 'system:serviceaccount:harvester-system:harvester', uid: 'f0e1d2c3', groups: ['system:serviceaccounts', 'system:serviceaccounts:harvester-system', 'system:authenticated'] },
      object: grown, oldObject: pvc, dryRun: false, options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'harvester' },
    },
  };
}
