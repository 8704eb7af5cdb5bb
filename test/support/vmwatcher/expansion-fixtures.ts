/**
 * One running VM's disk being grown from 10Gi to 20Gi, as the real components write the objects
 * (src/demo's staged objects plus the tracker's pods and PV), for the tracker's unit tests.
 */
import { type VolumeExpansion } from '../../../src/vmwatcher/index.js';
import { type LauncherVolume } from '../../../src/demo/index.js';
import type { Pod, VirtualMachineInstance } from '../../../src/model/index.js';
import type { StageInput } from '../../../src/vmwatcher/derive-stage.js';
import { hotplugPod, launcherPod, persistentVolume } from '../../../src/demo/actors/staged-pods.js';
import type {
  PersistentVolume,
  PvcCondition,
  PersistentVolumeClaim,
} from '../../../src/model/index.js';
import { kubeVirt, pvc, vm, vmi } from '../webhook/admission-objects.js';

export const CLAIM = 'vm1-disk-0-kq8zt';
export const PV = `pvc-${CLAIM}`;
export const NOW = Date.parse('2026-11-20T09:00:00Z');
export const MINUTE = 60_000;
export const LAUNCHER_UID = 'e2a4c6d8-1b3d-4f5a-8c9e-0a2b4c6d8e0f';

export function claim(
  options: {
    request?: string;
    capacity?: string;
    volumeMode?: 'Block' | 'Filesystem';
    name?: string;
  } = {},
): PersistentVolumeClaim {
  const object = pvc(options.name ?? CLAIM, {
    storage: options.request ?? '20Gi',
    volumeMode: options.volumeMode ?? 'Block',
    volumeName: `pvc-${options.name ?? CLAIM}`,
  }) as PersistentVolumeClaim;
  object.status = { ...object.status, capacity: { storage: options.capacity ?? '10Gi' } };
  return object;
}

/** The PVC's status as external-resizer / kubelet leave it. */
export function resizeState(
  object: PersistentVolumeClaim,
  state: {
    status?: string;
    conditions?: Array<Pick<PvcCondition, 'type' | 'message'>>;
    capacity?: string;
    allocated?: string;
  },
): PersistentVolumeClaim {
  const status = { ...object.status };
  if (state.status !== undefined) status.allocatedResourceStatuses = { storage: state.status };
  if (state.allocated !== undefined) status.allocatedResources = { storage: state.allocated };
  if (state.capacity !== undefined) status.capacity = { storage: state.capacity };
  if (state.conditions !== undefined) {
    status.conditions = state.conditions.map((condition) => ({
      type: condition.type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: '2026-11-20T08:59:00Z',
      ...(condition.message ? { message: condition.message } : {}),
    }));
  }
  return { ...object, status };
}

export function volume(
  capacity = '10Gi',
  volumeMode: 'Block' | 'Filesystem' = 'Block',
): PersistentVolume {
  return persistentVolume({ name: PV, claimName: CLAIM, capacity, volumeMode });
}

/** The VMI of vm1 with the PVC info virt-controller copied (capacity and requests). */
export function instance(
  options: {
    capacity?: string;
    requests?: string | null;
    volumeMode?: 'Block' | 'Filesystem';
    overhead?: string;
    volumes?: Array<Record<string, unknown>>;
  } = {},
): VirtualMachineInstance {
  const object = vmi(
    'vm1',
    options.volumes ? { volumes: options.volumes } : {},
  ) as VirtualMachineInstance;
  for (const status of object.status?.volumeStatus ?? []) {
    const info = status.persistentVolumeClaimInfo;
    if (!info || info.claimName !== CLAIM) continue;
    info.capacity = { storage: options.capacity ?? '10Gi' };
    if (options.requests === null) delete info.requests;
    else info.requests = { storage: options.requests ?? options.capacity ?? '10Gi' };
    info.volumeMode = options.volumeMode ?? 'Block';
    info.filesystemOverhead =
      options.overhead ?? (options.volumeMode === 'Filesystem' ? '0.055' : '0');
  }
  return object;
}

export function launcher(
  of: VirtualMachineInstance,
  name = 'virt-launcher-vm1-x7k2p',
  uid = LAUNCHER_UID,
  node = 'harvester-node-0',
  volumes: LauncherVolume[] = [{ name: 'disk-0', claimName: CLAIM, volumeMode: 'Block' }],
): Pod {
  return launcherPod(of, { name, uid, node, volumes });
}

export { hotplugPod };

export function expansion(to = '20Gi', status?: VolumeExpansion['status']): VolumeExpansion {
  return {
    apiVersion: 'storage.voe.dev/v1alpha1',
    kind: 'VolumeExpansion',
    metadata: {
      name: `${CLAIM}-20gi`,
      namespace: 'default',
      uid: '9a8b7c6d-0000-4000-8000-000000000001',
    },
    spec: { pvcName: CLAIM, vmName: 'vm1', from: '10Gi', to },
    ...(status ? { status } : {}),
  };
}

/** The whole input: the request raised to 20Gi, nothing else done yet. */
export function input(overrides: Partial<StageInput> = {}): StageInput {
  const running = overrides.vmi === undefined && !('vmi' in overrides) ? instance() : overrides.vmi;
  return {
    expansion: expansion(),
    pvc: claim(),
    pv: volume(),
    vm: vm('vm1'),
    vmi: running,
    pods: running ? [launcher(running)] : [],
    kubeVirt: kubeVirt(),
    probe: null,
    now: NOW,
    stuckAfterMs: 10 * MINUTE,
    ...overrides,
  };
}
