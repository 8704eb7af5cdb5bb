/**
 * Deterministic, realistic Harvester objects for the webhook benchmark: PVCs as the API server
 * stores them (annotations, finalizers, managedFields: about 3 KiB of JSON each), the VMs that
 * use them (volumes + the harvesterhci.io/volumeClaimTemplates annotation) and, for each running
 * VM, its VirtualMachineInstance as KubeVirt writes it (domain, status, managedFields: about 5 KiB).
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
    {
      manager: 'harvester',
      operation: 'Update',
      apiVersion: 'v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:annotations': {
            '.': {},
            'f:harvesterhci.io/imageId': {},
            'f:harvesterhci.io/owned-by': {},
          },
        },
        'f:spec': {
          'f:accessModes': {},
          'f:resources': { 'f:requests': { '.': {}, 'f:storage': {} } },
          'f:storageClassName': {},
          'f:volumeMode': {},
        },
      },
    },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:annotations': {
            'f:pv.kubernetes.io/bind-completed': {},
            'f:pv.kubernetes.io/bound-by-controller': {},
            'f:volume.beta.kubernetes.io/storage-provisioner': {},
            'f:volume.kubernetes.io/storage-provisioner': {},
          },
        },
        'f:spec': { 'f:volumeName': {} },
      },
    },
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      subresource: 'status',
      fieldsV1: {
        'f:status': {
          'f:accessModes': {},
          'f:capacity': { '.': {}, 'f:storage': {} },
          'f:phase': {},
        },
      },
    },
    {
      manager: 'csi-resizer',
      operation: 'Update',
      apiVersion: 'v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:allocatedResources': { '.': {}, 'f:storage': {} } } },
    },
  ];
}

/** managedFields of a running VMI: virt-controller writes spec and status, virt-handler the rest of status. */
function vmiManagedFields(): Obj[] {
  return [
    {
      manager: 'virt-controller',
      operation: 'Update',
      apiVersion: 'kubevirt.io/v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:annotations': {
            '.': {},
            'f:kubevirt.io/latest-observed-api-version': {},
            'f:kubevirt.io/storage-observed-api-version': {},
            'f:kubevirt.io/vm-generation': {},
          },
          'f:finalizers': { '.': {}, 'v:"foregroundDeleteVirtualMachine"': {} },
          'f:labels': { '.': {}, 'f:harvesterhci.io/vmName': {} },
          'f:ownerReferences': { '.': {}, 'k:{"uid":"..."}': {} },
        },
        'f:spec': {
          '.': {},
          'f:architecture': {},
          'f:domain': {
            '.': {},
            'f:cpu': {},
            'f:devices': {},
            'f:features': {},
            'f:firmware': {},
            'f:machine': {},
            'f:memory': {},
            'f:resources': {},
          },
          'f:evictionStrategy': {},
          'f:networks': {},
          'f:terminationGracePeriodSeconds': {},
          'f:volumes': {},
        },
        'f:status': {
          '.': {},
          'f:activePods': {},
          'f:conditions': {},
          'f:currentCPUTopology': {},
          'f:guestOSInfo': {},
          'f:launcherContainerImageVersion': {},
          'f:memory': {},
          'f:phase': {},
          'f:phaseTransitionTimestamps': {},
          'f:qosClass': {},
          'f:selinuxContext': {},
          'f:virtualMachineRevisionName': {},
          'f:volumeStatus': {},
        },
      },
    },
    {
      manager: 'virt-handler',
      operation: 'Update',
      apiVersion: 'kubevirt.io/v1',
      time: TIME,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { 'f:kubevirt.io/nodeName': {} } },
        'f:status': {
          'f:interfaces': {},
          'f:machine': { '.': {}, 'f:type': {} },
          'f:migrationMethod': {},
          'f:migrationTransport': {},
          'f:nodeName': {},
        },
      },
    },
  ];
}

/**
 * The running VMI of `vm`: the same volumes (a persisted hotplugged one hotpluggable, Ready, with
 * its hp-volume pod), owned by the VM. Its random fields come from `rand`, a generator of its own,
 * so that adding VMIs left the PVCs and VMs (and so the reviews) as they were.
 */
function vmiOf(vm: Obj, rand: () => number, index: number): Obj {
  const meta = vm['metadata'] as { name: string; namespace: string; uid: string };
  const template = ((vm['spec'] as Obj)['template'] as Obj)['spec'] as {
    domain: Obj;
    volumes: Array<Obj & { name: string }>;
  };
  const mac = `52:54:00:${[0, 1, 2]
    .map(() =>
      Math.floor(rand() * 256)
        .toString(16)
        .padStart(2, '0'),
    )
    .join(':')}`;
  const ip = `10.52.${Math.floor(index / 250) % 256}.${(index % 250) + 2}`;
  const node = `harvester-node-${index % 4}`;
  const hotplugged = (volume: Obj): boolean =>
    (volume['persistentVolumeClaim'] as { hotpluggable?: boolean } | undefined)?.hotpluggable ===
    true;
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: uuid(rand),
      generation: 12,
      resourceVersion: String(300000 + index),
      creationTimestamp: TIME,
      annotations: {
        'harvesterhci.io/sshNames': '[]',
        'kubevirt.io/latest-observed-api-version': 'v1',
        'kubevirt.io/storage-observed-api-version': 'v1',
        'kubevirt.io/vm-generation': '3',
      },
      labels: { 'harvesterhci.io/vmName': meta.name, 'kubevirt.io/nodeName': node },
      finalizers: [
        'kubevirt.io/virtualMachineControllerFinalize',
        'foregroundDeleteVirtualMachine',
      ],
      ownerReferences: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          name: meta.name,
          uid: meta.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: vmiManagedFields(),
    },
    spec: {
      architecture: 'amd64',
      domain: {
        ...template.domain,
        devices: {
          ...(template.domain['devices'] as Obj),
          interfaces: [{ name: 'default', masquerade: {}, model: 'virtio', macAddress: mac }],
        },
        features: { acpi: { enabled: true } },
        firmware: { uuid: uuid(rand), serial: uuid(rand) },
        machine: { type: 'q35' },
        resources: {
          limits: { cpu: '2', memory: '4Gi' },
          requests: { cpu: '125m', memory: '2730Mi' },
        },
      },
      evictionStrategy: 'LiveMigrateIfPossible',
      networks: [{ name: 'default', pod: {} }],
      terminationGracePeriodSeconds: 120,
      volumes: template.volumes,
    },
    status: {
      activePods: { [uuid(rand)]: node },
      conditions: [
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: TIME },
        { type: 'LiveMigratable', status: 'True', lastProbeTime: null, lastTransitionTime: null },
        { type: 'AgentConnected', status: 'True', lastProbeTime: null, lastTransitionTime: TIME },
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
          ipAddress: ip,
          ipAddresses: [ip],
          mac,
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
      nodeName: node,
      phase: 'Running',
      phaseTransitionTimestamps: ['Pending', 'Scheduling', 'Scheduled', 'Running'].map((phase) => ({
        phase,
        phaseTransitionTimestamp: TIME,
      })),
      qosClass: 'Burstable',
      selinuxContext: 'none',
      virtualMachineRevisionName: `revision-start-vm-${meta.uid}-3`,
      volumeStatus: template.volumes.map((volume, i) => {
        const claim = volume['persistentVolumeClaim'] as { claimName: string } | undefined;
        return {
          name: volume.name,
          target: hotplugged(volume) ? 'sda' : `vd${String.fromCharCode(97 + i)}`,
          ...(hotplugged(volume)
            ? {
                phase: 'Ready',
                reason: 'VolumeReady',
                message: `Successfully attach hotplugged volume ${volume.name} to VM`,
                hotplugVolume: {
                  attachPodName: `hp-volume-${uuid(rand).slice(0, 5)}`,
                  attachPodUID: uuid(rand),
                },
              }
            : {}),
          ...(claim
            ? {
                persistentVolumeClaimInfo: {
                  claimName: claim.claimName,
                  accessModes: ['ReadWriteMany'],
                  volumeMode: 'Block',
                  filesystemOverhead: '0',
                  capacity: { storage: '10Gi' },
                  requests: { storage: '10Gi' },
                },
              }
            : { size: 1048576 }),
        };
      }),
    },
  };
}

export interface Fixture {
  pvcs: Obj[];
  vms: Obj[];
  vmis: Obj[];
  storageClasses: Obj[];
  kubevirt: Obj;
  setting: Obj;
}

/**
 * What to keep of each PVC, VM and VMI as it is made (default: all of it). The informers of
 * `voe serve` transform each listed object as its page arrives (withoutManagedFields, leanVmi),
 * so the whole objects never all live at once; a server process building its caches from the
 * fixture passes the same transforms here.
 */
export interface FixtureKeep {
  pvc?: (pvc: Obj) => Obj;
  vm?: (vm: Obj) => Obj;
  vmi?: (vmi: Obj) => Obj;
}

export function buildFixture(count: number, seed = 42, keep: FixtureKeep = {}): Fixture {
  const keepPvc = keep.pvc ?? ((pvc: Obj) => pvc);
  const keepVm = keep.vm ?? ((vm: Obj) => vm);
  const keepVmi = keep.vmi ?? ((vmi: Obj) => vmi);
  const rand = seededRandom(seed);
  const vmiRand = seededRandom(seed + 1);
  const pvcs: Obj[] = [];
  const vms: Obj[] = [];
  const vmis: Obj[] = [];
  const storageClasses: Obj[] = [
    {
      metadata: { name: 'harvester-longhorn' },
      provisioner: 'driver.longhorn.io',
      allowVolumeExpansion: true,
      parameters: { numberOfReplicas: '3', dataEngine: 'v1' },
    },
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
    const pvc: Obj = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace,
        uid: uuid(rand),
        resourceVersion: String(100000 + i),
        creationTimestamp: TIME,
        annotations: {
          'harvesterhci.io/imageId': `default/image-${uuid(rand).slice(0, 5)}`,
          'harvesterhci.io/owned-by': JSON.stringify([
            { schema: 'kubevirt.io.virtualmachine', refs: [`${namespace}/${vmName}`] },
          ]),
          'pv.kubernetes.io/bind-completed': 'yes',
          'pv.kubernetes.io/bound-by-controller': 'yes',
          'volume.beta.kubernetes.io/storage-provisioner': provisioner,
          'volume.kubernetes.io/storage-provisioner': provisioner,
        },
        finalizers: [
          'kubernetes.io/pvc-protection',
          'provisioner.storage.kubernetes.io/cloning-protection',
        ],
        managedFields: managedFields(),
      },
      spec: {
        accessModes: ['ReadWriteMany'],
        resources: { requests: { storage: size } },
        storageClassName: sc['metadata'] && (sc['metadata'] as Obj)['name'],
        volumeMode,
        volumeName: `pvc-${uuid(rand)}`,
      },
      status: { accessModes: ['ReadWriteMany'], capacity: { storage: size }, phase: 'Bound' },
    };
    pvcs.push(keepPvc(pvc));
    const hotpluggable = volumeMode === 'Filesystem' && rand() < 0.3;
    const vm: Obj = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: {
        name: vmName,
        namespace,
        uid: uuid(rand),
        generation: 3,
        resourceVersion: String(200000 + i),
        annotations: {
          'harvesterhci.io/volumeClaimTemplates': JSON.stringify([
            {
              metadata: { name, annotations: { 'harvesterhci.io/imageId': 'default/image' } },
              spec: {
                accessModes: ['ReadWriteMany'],
                resources: { requests: { storage: size } },
                volumeMode,
                storageClassName: 'harvester-longhorn',
              },
            },
          ]),
          'network.harvesterhci.io/ips': '[]',
        },
        labels: { 'harvesterhci.io/creator': 'harvester', 'harvesterhci.io/os': 'ubuntu' },
      },
      spec: {
        runStrategy: 'RerunOnFailure',
        template: {
          spec: {
            domain: {
              cpu: { cores: 2, sockets: 1, threads: 1 },
              memory: { guest: '3996Mi' },
              devices: {
                disks: [
                  { name: 'disk-0', disk: { bus: 'virtio' }, bootOrder: 1 },
                  { name: 'cloudinitdisk', disk: { bus: 'virtio' } },
                ],
              },
            },
            volumes: [
              {
                name: 'disk-0',
                persistentVolumeClaim: {
                  claimName: name,
                  ...(hotpluggable ? { hotpluggable: true } : {}),
                },
              },
              {
                name: 'cloudinitdisk',
                cloudInitNoCloud: { userData: '#cloud-config\npackage_update: true\n' },
              },
            ],
          },
        },
      },
      status: { printableStatus: rand() < 0.7 ? 'Running' : 'Stopped', ready: true },
    };
    vms.push(keepVm(vm));
    if ((vm['status'] as { printableStatus: string }).printableStatus === 'Running')
      vmis.push(keepVmi(vmiOf(vm, vmiRand, i)));
  }
  return {
    pvcs,
    vms,
    vmis,
    storageClasses,
    kubevirt: {
      metadata: { name: 'kubevirt', namespace: 'harvester-system' },
      spec: {
        configuration: {
          developerConfiguration: {
            featureGates: ['LiveMigration', 'HotplugVolumes', 'ExpandDisks'],
          },
        },
      },
    },
    setting: {
      metadata: { name: 'csi-online-expand-validation' },
      default: '{"driver.longhorn.io":true}',
      value: '{"nfs.csi.k8s.io":true}',
    },
  };
}

/** An AdmissionReview asking to double `pvc`'s storage request (what the API server sends on a resize). */
export function resizeReview(pvc: Obj, uid: string): Obj {
  const spec = pvc['spec'] as { resources: { requests: { storage: string } } };
  const grown = {
    ...pvc,
    spec: {
      ...spec,
      resources: {
        requests: { storage: `${Number.parseInt(spec.resources.requests.storage, 10) * 2}Gi` },
      },
    },
  };
  const meta = pvc['metadata'] as { name: string; namespace: string };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
      resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      requestKind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
      requestResource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
      name: meta.name,
      namespace: meta.namespace,
      operation: 'UPDATE',
      userInfo: {
        username: 'system:serviceaccount:harvester-system:harvester',
        uid: 'f0e1d2c3',
        groups: [
          'system:serviceaccounts',
          'system:serviceaccounts:harvester-system',
          'system:authenticated',
        ],
      },
      object: grown,
      oldObject: pvc,
      dryRun: false,
      options: { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'harvester' },
    },
  };
}
