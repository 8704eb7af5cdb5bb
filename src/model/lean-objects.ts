/**
 * What the tracker's caches keep of each object (the informers' transform): the fields
 * deriveStage and the indexes read, so that a large cluster's PVCs, VMs, VMIs and pods fit in a
 * small heap (a running VMI's or a virt-launcher pod's JSON is several KiB; this keeps a few
 * hundred bytes). Pure; the object given is not changed.
 */
import { GROW_GUEST_FILESYSTEM_ANNOTATION, GUEST_PROBE_ANNOTATION } from './voe-annotations.js';
import type {
  ClaimEvent,
  LiveMeta,
  Namespace,
  OwnerReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
} from './kubernetes-objects.js';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VmiCondition,
  VmVolume,
} from './kubevirt-objects.js';
import type { LonghornVolume } from './longhorn-objects.js';
import { AGENT_CONNECTED, CREATED_BY_LABEL, KUBEVIRT_POD_LABEL, PAUSED } from './kubevirt-names.js';
import { VOLUME_CLAIM_TEMPLATES_ANNOTATION } from './vm-claims.js';

function defined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as T;
}

function meta(metadata: LiveMeta | undefined, extra: Partial<LiveMeta> = {}): LiveMeta {
  const m = metadata ?? {};
  return defined({
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: m.creationTimestamp,
    deletionTimestamp: m.deletionTimestamp,
    ...extra,
  });
}

function claimVolumes(volumes: VmVolume[] | undefined): VmVolume[] {
  const kept: VmVolume[] = [];
  for (const volume of volumes ?? []) {
    if (volume.persistentVolumeClaim) {
      kept.push({ name: volume.name, persistentVolumeClaim: { ...volume.persistentVolumeClaim } });
    } else if (volume.dataVolume) {
      kept.push({ name: volume.name, dataVolume: { ...volume.dataVolume } });
    }
  }
  return kept;
}

function controllerOwners(owners: OwnerReference[] | undefined): OwnerReference[] | undefined {
  const kept = (owners ?? [])
    .filter((owner) => owner.controller === true)
    .map((owner) => ({
      apiVersion: owner.apiVersion,
      kind: owner.kind,
      name: owner.name,
      uid: owner.uid,
      controller: true,
    }));
  return kept.length > 0 ? kept : undefined;
}

export function leanPvc(pvc: PersistentVolumeClaim): PersistentVolumeClaim {
  const status = pvc.status ?? {};
  return {
    metadata: meta(pvc.metadata),
    spec: defined({
      resources: pvc.spec?.resources ? { requests: pvc.spec.resources.requests } : undefined,
      volumeMode: pvc.spec?.volumeMode,
      volumeName: pvc.spec?.volumeName,
    }),
    status: defined({
      phase: status.phase,
      capacity: status.capacity,
      conditions: status.conditions,
      allocatedResources: status.allocatedResources,
      allocatedResourceStatuses: status.allocatedResourceStatuses,
    }),
  };
}

export function leanPv(pv: PersistentVolume): PersistentVolume {
  const claimRef = pv.spec?.claimRef;
  return {
    metadata: meta(pv.metadata),
    spec: defined({
      capacity: pv.spec?.capacity,
      volumeMode: pv.spec?.volumeMode,
      csi: pv.spec?.csi
        ? defined({ driver: pv.spec.csi.driver, volumeHandle: pv.spec.csi.volumeHandle })
        : undefined,
      claimRef: claimRef
        ? defined({ namespace: claimRef.namespace, name: claimRef.name })
        : undefined,
    }),
  };
}

/** A Longhorn volume: its expansion state and the PVC it serves. */
export function leanLonghornVolume(volume: LonghornVolume): LonghornVolume {
  const status = volume.status;
  const kubernetes = status?.kubernetesStatus;
  return {
    metadata: meta(volume.metadata),
    ...(status
      ? {
          status: defined({
            expansionRequired: status.expansionRequired,
            lastExpansionError: status.lastExpansionError,
            lastExpansionFailedAt: status.lastExpansionFailedAt,
            kubernetesStatus: kubernetes
              ? defined({ namespace: kubernetes.namespace, pvcName: kubernetes.pvcName })
              : undefined,
          }),
        }
      : {}),
  };
}

/** An Event about a PVC: what it says and when. */
export function leanClaimEvent(event: ClaimEvent): ClaimEvent {
  const about = event.involvedObject;
  return defined({
    metadata: meta(event.metadata),
    involvedObject: about
      ? defined({ kind: about.kind, namespace: about.namespace, name: about.name })
      : undefined,
    type: event.type,
    reason: event.reason,
    message: event.message,
    lastTimestamp: event.lastTimestamp,
    eventTime: event.eventTime,
  });
}

export function leanVm(vm: VirtualMachine): VirtualMachine {
  const templates = vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
  const probe = vm.metadata?.annotations?.[GUEST_PROBE_ANNOTATION];
  const grow = vm.metadata?.annotations?.[GROW_GUEST_FILESYSTEM_ANNOTATION];
  const annotations = defined({
    [VOLUME_CLAIM_TEMPLATES_ANNOTATION]: templates,
    [GUEST_PROBE_ANNOTATION]: probe,
    [GROW_GUEST_FILESYSTEM_ANNOTATION]: grow,
  }) as Record<string, string>;
  return {
    metadata: meta(vm.metadata, {
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    }),
    spec: { template: { spec: { volumes: claimVolumes(vm.spec?.template?.spec?.volumes) } } },
    status: defined({ printableStatus: vm.status?.printableStatus }),
  };
}

/** The disks' name, serial and bus (what a guest probe matches the guest's devices by). */
function disksOf(
  vmi: VirtualMachineInstance,
): NonNullable<VirtualMachineInstance['spec']>['domain'] {
  const disks = vmi.spec?.domain?.devices?.disks;
  if (!disks) return undefined;
  const bus = (device: { bus?: string } | undefined) =>
    device ? defined({ bus: device.bus }) : undefined;
  return {
    devices: {
      disks: disks.map((disk) =>
        defined({
          name: disk.name,
          serial: disk.serial,
          disk: bus(disk.disk),
          lun: bus(disk.lun),
          cdrom: bus(disk.cdrom),
        }),
      ),
    },
  };
}

/** Only AgentConnected (whether the guest can be asked) and Paused (no guest growth meanwhile). */
function agentConditions(conditions: VmiCondition[] | undefined): VmiCondition[] | undefined {
  const kept = (conditions ?? [])
    .filter((condition) => condition.type === AGENT_CONNECTED || condition.type === PAUSED)
    .map((condition) => defined({ type: condition.type, status: condition.status }));
  return kept.length > 0 ? kept : undefined;
}

export function leanTrackedVmi(vmi: VirtualMachineInstance): VirtualMachineInstance {
  const status = vmi.status ?? {};
  const migration = status.migrationState;
  return {
    metadata: meta(
      vmi.metadata,
      defined({ ownerReferences: controllerOwners(vmi.metadata?.ownerReferences) }),
    ),
    spec: defined({
      volumes: claimVolumes(vmi.spec?.volumes),
      domain: disksOf(vmi),
    }),
    status: defined({
      conditions: agentConditions(status.conditions),
      // The guest probe reads no shell in a Windows guest (windowsGuest).
      guestOSInfo: status.guestOSInfo
        ? defined({
            id: status.guestOSInfo.id,
            name: status.guestOSInfo.name,
            prettyName: status.guestOSInfo.prettyName,
          })
        : undefined,
      phase: status.phase,
      nodeName: status.nodeName,
      activePods: status.activePods,
      migrationState: migration
        ? defined({
            sourcePod: migration.sourcePod,
            targetPod: migration.targetPod,
            completed: migration.completed,
            failed: migration.failed,
          })
        : undefined,
      volumeStatus: status.volumeStatus?.map((entry) =>
        defined({
          name: entry.name,
          target: entry.target,
          hotplugVolume: entry.hotplugVolume ? {} : undefined,
          persistentVolumeClaimInfo: entry.persistentVolumeClaimInfo
            ? defined({
                claimName: entry.persistentVolumeClaimInfo.claimName,
                volumeMode: entry.persistentVolumeClaimInfo.volumeMode,
                capacity: entry.persistentVolumeClaimInfo.capacity,
                requests: entry.persistentVolumeClaimInfo.requests,
                filesystemOverhead: entry.persistentVolumeClaimInfo.filesystemOverhead,
              })
            : undefined,
        }),
      ),
    }),
  };
}

/** A securityContext cut to its runAsUser, when it sets one. */
function runAsUser(context: unknown): { securityContext?: { runAsUser: number } } {
  const user = (context as { runAsUser?: unknown } | undefined)?.runAsUser;
  return typeof user === 'number' ? { securityContext: { runAsUser: user } } : {};
}

export function leanPod(pod: Pod): Pod {
  const labels = pod.metadata?.labels ?? {};
  const claims = new Set<string>();
  const volumes = (pod.spec?.volumes ?? [])
    .filter((volume) => volume.persistentVolumeClaim)
    .map((volume) => {
      if (volume.name) claims.add(volume.name);
      return {
        name: volume.name,
        persistentVolumeClaim: { claimName: volume.persistentVolumeClaim?.claimName },
      };
    });
  return {
    metadata: meta(pod.metadata, {
      labels: defined({
        [KUBEVIRT_POD_LABEL]: labels[KUBEVIRT_POD_LABEL],
        [CREATED_BY_LABEL]: labels[CREATED_BY_LABEL],
      }) as Record<string, string>,
      ...defined({ ownerReferences: controllerOwners(pod.metadata?.ownerReferences) }),
    }),
    spec: {
      nodeName: pod.spec?.nodeName,
      volumes,
      // The user the launcher runs as picks the guest probe's libvirt URI (launcherUser).
      ...runAsUser(pod.spec?.['securityContext']),
      containers: (pod.spec?.containers ?? []).map((container) => ({
        name: container.name,
        ...runAsUser(container['securityContext']),
        volumeMounts: (container.volumeMounts ?? [])
          .filter((mount) => mount.name !== undefined && claims.has(mount.name))
          .map((mount) => ({ name: mount.name })),
        volumeDevices: (container.volumeDevices ?? [])
          .filter((device) => device.name !== undefined && claims.has(device.name))
          .map((device) => ({ name: device.name })),
      })),
    },
    status: defined({ phase: pod.status?.phase }),
  };
}

/** A Namespace as the tracker keeps it: its name and its guest-growth opt-in annotation alone. */
export function leanNamespace(namespace: Namespace): Namespace {
  const grow = namespace.metadata?.annotations?.[GROW_GUEST_FILESYSTEM_ANNOTATION];
  return {
    metadata: meta(
      namespace.metadata,
      grow === undefined ? {} : { annotations: { [GROW_GUEST_FILESYSTEM_ANNOTATION]: grow } },
    ),
  };
}
