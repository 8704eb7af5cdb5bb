/**
 * The control plane's side of a lab VM: the objects KubeVirt, Harvester and a CSI provisioner
 * would hold for the libvirt domain `<namespace>_<vm>` (VM, VMI with its volumeStatus and disk
 * serials, the virt-launcher pod, bound PVCs with their PVs), plus what admits their resize: a
 * StorageClass of the lab's provisioner, the csi-online-expand-validation Setting allowing it,
 * and the KubeVirt CR with ExpandDisks. For the VM lab's tests and `voe demo --vm`.
 */
import { isAlreadyExists, requestJson, resourcePath } from '../kube/index.js';
import { ExpansionActors } from './actors/expansion-actors.js';
import { HOTPLUG_POD_NAME } from './running-instances.js';
import { type LabDisk } from './lab/lab-domain.js';
import type { Pod, VirtualMachineInstance } from '../model/index.js';
import { KINDS, type StagedCluster } from './staged-cluster.js';
import { harvesterSetting, kubeVirt, pvc, storageClass, vm, vmi } from './staged-objects.js';

export const LAB_PROVISIONER = 'lab.csi.voe.dev';
export const LAB_STORAGE_CLASS = 'voe-vm-lab';

/** One disk of the lab VM as the control plane sees it. */
export interface MirroredDisk extends Omit<LabDisk, 'file'> {
  claim: string;
  /** The VMI volume's name (also the disk's name in spec.domain.devices.disks). */
  volumeName: string;
  /** The PVC's size, e.g. "1Gi". */
  size: string;
}

export interface LabMirrorOptions {
  namespace: string;
  /** The VM's and its VMI's name (the domain is <namespace>_<name>). */
  name: string;
  disks: readonly MirroredDisk[];
  /** Whether the VMI shows AgentConnected (virt-handler sets it while qemu-ga answers). */
  agentConnected: boolean;
  /** The VM's own annotations besides Harvester's (e.g. storage.voe.dev/grow-guest-filesystem). */
  vmAnnotations?: Record<string, string>;
}

async function createOnce(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** The cluster-wide objects: the lab's StorageClass, the Setting allowing its provisioner, KubeVirt with ExpandDisks. */
async function stageLabCluster(cluster: StagedCluster): Promise<void> {
  await createOnce(() =>
    cluster.apply({ storageClasses: [storageClass(LAB_STORAGE_CLASS, LAB_PROVISIONER)] }),
  );
  await createOnce(() =>
    cluster.apply({
      settings: [
        harvesterSetting(JSON.stringify({ 'driver.longhorn.io': true, [LAB_PROVISIONER]: true })),
      ],
    }),
  );
  await createOnce(() => cluster.apply({ kubeVirts: [kubeVirt()] }));
}

/** The VMI as virt-handler writes it for the lab's disks: their bus, serial and target. */
function labVmi(
  options: LabMirrorOptions,
  volumes: Array<Record<string, unknown>>,
): VirtualMachineInstance {
  const instance = vmi(options.name, {
    namespace: options.namespace,
    volumes,
    volumeModes: Object.fromEntries(
      options.disks.map((disk) => [disk.claim, disk.volumeMode ?? 'Block']),
    ),
  }) as VirtualMachineInstance;
  const byName = new Map(options.disks.map((disk) => [disk.volumeName, disk]));
  for (const entry of instance.spec?.domain?.devices?.disks ?? []) {
    const disk = byName.get(entry.name ?? '');
    if (!disk) continue;
    if (disk.device === 'cdrom') {
      delete entry.disk;
      entry.cdrom = { bus: disk.bus };
    } else entry.disk = { bus: disk.bus };
    if (disk.serial) entry.serial = disk.serial;
    else delete entry.serial;
  }
  for (const entry of instance.status?.volumeStatus ?? []) {
    const disk = byName.get(entry.name ?? '');
    if (!disk) continue;
    entry.target = disk.target;
    if (entry.persistentVolumeClaimInfo) {
      entry.persistentVolumeClaimInfo.capacity = { storage: disk.size };
      entry.persistentVolumeClaimInfo.requests = { storage: disk.size };
    }
  }
  if (!options.agentConnected && instance.status)
    instance.status.conditions = (instance.status.conditions ?? []).filter(
      (condition) => condition.type !== 'AgentConnected',
    );
  return instance;
}

/**
 * Stages the lab VM's objects (PVCs of each disk's volumeMode, Block unless told, bound to PVs of
 * the lab's provisioner; the VM; its VMI, a cdrom as a cdrom disk and hotplugged volumes
 * `hotpluggable` with their attachment pod in volumeStatus, read back with its uid; the running
 * virt-launcher pod listed in activePods; the hotplug attachment pod holding the hotplugged
 * volumes) and the cluster-wide ones; returns the VMI and the launcher.
 */
export async function stageLabMirror(
  cluster: StagedCluster,
  options: LabMirrorOptions,
): Promise<{ vmi: VirtualMachineInstance; launcher: Pod }> {
  const { namespace, name } = options;
  await stageLabCluster(cluster);
  const claims = options.disks.map((disk) =>
    pvc(disk.claim, {
      namespace,
      storage: disk.size,
      className: LAB_STORAGE_CLASS,
      provisioner: LAB_PROVISIONER,
      volumeMode: disk.volumeMode ?? 'Block',
      volumeName: `pvc-${namespace}-${disk.claim}`,
    }),
  );
  const volumes = options.disks.map((disk) => ({
    name: disk.volumeName,
    persistentVolumeClaim: {
      claimName: disk.claim,
      ...(disk.hotplug === true ? { hotpluggable: true } : {}),
    },
  }));
  await cluster.apply({
    pvcs: claims,
    vms: [
      vm(name, {
        namespace,
        volumes,
        templates: [],
        ...(options.vmAnnotations ? { annotations: options.vmAnnotations } : {}),
      }),
    ],
    vmis: [labVmi(options, volumes)],
  });
  await cluster.bindClaims(claims);
  const { group, version, plural } = KINDS.vmis;
  const read = (): Promise<VirtualMachineInstance> =>
    requestJson<VirtualMachineInstance>(cluster.kubeConfig, {
      method: 'GET',
      path: resourcePath({ group, version, plural, namespace, name }),
    });
  const actors = new ExpansionActors(cluster.kubeConfig);
  const launcher = await actors.createLauncher(await read(), {
    name: `virt-launcher-${name}-lab01`,
    volumes: options.disks
      .filter((disk) => disk.hotplug !== true)
      .map((disk) => ({
        name: disk.volumeName,
        claimName: disk.claim,
        volumeMode: disk.volumeMode ?? 'Block',
      })),
  });
  const hotplugged = options.disks.filter((disk) => disk.hotplug === true);
  if (hotplugged.length > 0)
    await actors.createHotplugPod(launcher, {
      name: HOTPLUG_POD_NAME,
      volumes: hotplugged.map((disk) => ({
        name: disk.volumeName,
        claimName: disk.claim,
        hold: disk.volumeMode === 'Filesystem' ? 'mount' : 'device',
      })),
    });
  await actors.activePods(namespace, name, [launcher]);
  return { vmi: await read(), launcher };
}
