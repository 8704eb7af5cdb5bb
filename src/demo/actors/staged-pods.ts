/**
 * Real-shaped virt-launcher and hotplug attachment pods, as KubeVirt's virt-controller renders
 * them (kubevirt/kubevirt pkg/virt-controller/services/template.go: RenderLaunchManifest and
 * RenderHotplugAttachmentPodTemplate; docs/tracker.md), and a CSI PersistentVolume as a
 * provisioner creates it: for the tracker's tests, its benchmark and the test actors
 * (src/demo/actors/expansion-actors.ts). Never written into a user's cluster.
 */
import {
  CREATED_BY_LABEL,
  HOTPLUG_POD,
  KUBEVIRT_POD_LABEL,
  LAUNCHER_POD,
  type PersistentVolume,
  type Pod,
  type VirtualMachineInstance,
} from '../../model/index.js';

const LAUNCHER_IMAGE = 'registry.suse.com/suse/sles/15.6/virt-launcher:1.5.2-150600.5.21.1';

export interface LauncherVolume {
  /** The VMI volume name. */
  name: string;
  claimName: string;
  volumeMode?: 'Block' | 'Filesystem';
}

/**
 * The virt-launcher pod of a VMI: labels kubevirt.io=virt-launcher and kubevirt.io/created-by =
 * the VMI's uid, a controller ownerReference to the VMI, the `compute` container with a
 * volumeMount (Filesystem) or volumeDevice (Block) per non-hotplugged PVC volume.
 */
export function launcherPod(
  vmi: VirtualMachineInstance,
  options: { name: string; uid: string; node?: string; volumes?: LauncherVolume[] },
): Pod {
  const vmiName = vmi.metadata?.name ?? '';
  const volumes = options.volumes ?? [];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name,
      namespace: vmi.metadata?.namespace ?? 'default',
      uid: options.uid,
      labels: {
        [KUBEVIRT_POD_LABEL]: LAUNCHER_POD,
        [CREATED_BY_LABEL]: vmi.metadata?.uid ?? '',
        'vm.kubevirt.io/name': vmiName,
        'harvesterhci.io/vmName': vmiName,
        'kubevirt.io/nodeName': options.node ?? 'harvester-node-0',
      },
      annotations: {
        'kubevirt.io/domain': vmiName,
        'kubevirt.io/migrationTransportUnix': 'true',
        'post.hook.backup.velero.io/command': '["/usr/bin/virt-freezer", "--unfreeze"]',
      },
      ownerReferences: [
        {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachineInstance',
          name: vmiName,
          uid: vmi.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: options.node ?? 'harvester-node-0',
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'compute',
          image: LAUNCHER_IMAGE,
          command: ['/usr/bin/virt-launcher-monitor', '--qemu-timeout', '301s', '--name', vmiName],
          volumeMounts: [
            { name: 'private', mountPath: '/var/run/kubevirt-private' },
            ...volumes
              .filter((volume) => volume.volumeMode !== 'Block')
              .map((volume) => ({
                name: volume.name,
                mountPath: `/var/run/kubevirt-private/vmi-disks/${volume.name}`,
              })),
          ],
          volumeDevices: volumes
            .filter((volume) => volume.volumeMode === 'Block')
            .map((volume) => ({ name: volume.name, devicePath: `/dev/${volume.name}` })),
        },
      ],
      volumes: [
        { name: 'private', emptyDir: {} },
        ...volumes.map((volume) => ({
          name: volume.name,
          persistentVolumeClaim: { claimName: volume.claimName },
        })),
      ],
      terminationGracePeriodSeconds: 150,
    },
    status: { phase: 'Running' },
  };
}

export interface HotplugVolume {
  name: string;
  claimName: string;
  /** mount: a Filesystem volume mounted (until Ready); device: a Block volume; listed: in volumes only (already Ready when the pod was made). */
  hold: 'mount' | 'device' | 'listed';
  /** The PVC's uid, the last part of a Block volume's device path (ExpansionActors reads it from the PVC). */
  claimUid?: string;
}

/**
 * A hotplug attachment pod (generateName hp-volume-): label kubevirt.io=hotplug-disk, a
 * controller ownerReference (kind Pod) to the virt-launcher pod, container `hotplug-disk` on the
 * same node, each volume mounted, attached as a device, or only listed, at the paths KubeVirt's
 * RenderHotplugAttachmentPodTemplate gives them (pkg/virt-controller/services/template.go): a
 * Filesystem volume mounted on `/<volume>`, a Block volume's device at `/path/<volume>/<PVC uid>`.
 */
export function hotplugPod(
  launcher: Pod,
  options: { name: string; uid: string; volumes: HotplugVolume[] },
): Pod {
  const volumes = options.volumes;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name,
      namespace: launcher.metadata?.namespace ?? 'default',
      uid: options.uid,
      labels: { [KUBEVIRT_POD_LABEL]: HOTPLUG_POD },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Pod',
          name: launcher.metadata?.name ?? '',
          uid: launcher.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      nodeName: launcher.spec?.nodeName ?? 'harvester-node-0',
      containers: [
        {
          name: 'hotplug-disk',
          image: LAUNCHER_IMAGE,
          command: ['/bin/sh', '-c', '/usr/bin/container-disk --copy-path /path/hp'],
          volumeMounts: [
            { name: 'hotplug-disks', mountPath: '/path' },
            ...volumes
              .filter((volume) => volume.hold === 'mount')
              .map((volume) => ({ name: volume.name, mountPath: `/${volume.name}` })),
          ],
          volumeDevices: volumes
            .filter((volume) => volume.hold === 'device')
            .map((volume) => ({
              name: volume.name,
              devicePath: ['/path', volume.name, volume.claimUid].filter(Boolean).join('/'),
            })),
        },
      ],
      volumes: [
        { name: 'hotplug-disks', emptyDir: {} },
        ...volumes.map((volume) => ({
          name: volume.name,
          persistentVolumeClaim: { claimName: volume.claimName },
        })),
      ],
    },
    status: { phase: 'Running' },
  };
}

/** A CSI PersistentVolume bound to the claim, as a provisioner creates it. */
export function persistentVolume(options: {
  name: string;
  namespace?: string;
  claimName: string;
  capacity: string;
  driver?: string;
  volumeMode?: 'Block' | 'Filesystem';
}): PersistentVolume {
  const driver = options.driver ?? 'driver.longhorn.io';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: options.name,
      annotations: { 'pv.kubernetes.io/provisioned-by': driver },
    },
    spec: {
      capacity: { storage: options.capacity },
      accessModes: ['ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Delete',
      volumeMode: options.volumeMode ?? 'Block',
      claimRef: {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        namespace: options.namespace ?? 'default',
        name: options.claimName,
      },
      csi: { driver, volumeHandle: options.name },
    },
    status: { phase: 'Bound' },
  };
}
