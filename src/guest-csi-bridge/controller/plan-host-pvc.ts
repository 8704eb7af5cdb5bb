import { formatBytes } from '../../kube/index.js';
import { LONGHORN_DRIVER } from '../../settings/index.js';
import { roundUp, type CapacityRange } from '../csi/capacity-range.js';
import { hostPvcName } from '../csi/host-pvc-name.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostPvc } from '../host/host-objects.js';
import { requestBytesOf } from './pvc-sizes.js';

/** Size of a volume whose CreateVolume asks for none, and the least the driver makes (as Harvester's driver). */
export const MIN_VOLUME_BYTES = 10n * 1024n * 1024n;
/** New host PVCs are rounded up to this (Harvester's and Longhorn's allocation unit). */
export const HOST_ROUNDING_BYTES = 2n * 1024n * 1024n;

/** The StorageClass parameter that names the host StorageClass. */
export const HOST_STORAGE_CLASS_PARAMETER = 'hostStorageClass';
/** The StorageClass parameter that makes the host PVC Filesystem mode (`filesystem`); Block otherwise. */
export const HOST_VOLUME_MODE_PARAMETER = 'hostVolumeMode';
/** The annotation Harvester sets on Filesystem-mode host PVCs of other storage than Longhorn. */
export const VOLUME_FOR_VM_ANNOTATION = 'harvesterhci.io/volumeForVirtualMachine';
/** The CreateVolume name a host PVC was made for, when its name had to be derived from it (see hostPvcName). */
export const CSI_NAME_ANNOTATION = 'voe.harvesterhci.io/csi-volume-name';

export interface HostPvcPlan {
  /** The volume id: the host PVC's name. */
  volumeId: string;
  body: HostPvc;
  /** The host request in bytes (rounded up to HOST_ROUNDING_BYTES). */
  requestBytes: bigint;
  /** What CreateVolume answers as capacity_bytes: the size asked for (at least MIN_VOLUME_BYTES), as Harvester's driver. */
  capacityBytes: bigint;
  volumeMode: 'Block' | 'Filesystem';
}

export interface PlanInput {
  name: string;
  capacity: CapacityRange;
  parameters: Record<string, string>;
  /** The driver's --host-storage-class; the host's default StorageClass when neither it nor the parameter is set. */
  defaultHostStorageClass: string | undefined;
  /** Filesystem mode only: the provisioner of the host StorageClass, when known. */
  hostProvisioner?: string | undefined;
  /** A shared (RWX) volume: a Filesystem-mode host PVC, whatever `hostVolumeMode` says (Longhorn's share manager exports its filesystem). */
  shared?: boolean;
}

/** The host StorageClass a CreateVolume asks for (parameter, else the driver's flag), undefined for the host's default. */
export function hostStorageClassFor(
  parameters: Record<string, string>,
  defaultHostStorageClass: string | undefined,
): string | undefined {
  return parameters[HOST_STORAGE_CLASS_PARAMETER] || defaultHostStorageClass || undefined;
}

/** The host PVC volumeMode a CreateVolume asks for: Filesystem when `hostVolumeMode: filesystem`, else Block. */
export function hostVolumeModeFor(parameters: Record<string, string>): 'Block' | 'Filesystem' {
  return parameters[HOST_VOLUME_MODE_PARAMETER]?.toLowerCase() === 'filesystem'
    ? 'Filesystem'
    : 'Block';
}

/**
 * The host PVC a CreateVolume makes (pure): named hostPvcName(name), ReadWriteMany (so the guest
 * node's VM can live-migrate), Block unless `hostVolumeMode: filesystem` or shared, on the host
 * StorageClass the parameters or the driver name, sized at the request (default and minimum
 * 10 MiB) rounded up to 2 MiB. Throws CSI_CAPACITY_OUT_OF_RANGE when that exceeds limit_bytes.
 */
export function planHostPvc(input: PlanInput): HostPvcPlan {
  const { name, capacity, parameters } = input;
  const asked =
    capacity.requiredBytes > MIN_VOLUME_BYTES ? capacity.requiredBytes : MIN_VOLUME_BYTES;
  const requestBytes = roundUp(asked, HOST_ROUNDING_BYTES);
  if (capacity.limitBytes !== 0n && requestBytes > capacity.limitBytes)
    throw new CsiError(
      'CSI_CAPACITY_OUT_OF_RANGE',
      `the least volume the host makes for this request is ${formatBytes(requestBytes)} (at least ${formatBytes(MIN_VOLUME_BYTES)}, in whole ${formatBytes(HOST_ROUNDING_BYTES)}), above limit_bytes ${capacity.limitBytes}`,
    );
  const volumeId = hostPvcName(name);
  const volumeMode = input.shared ? 'Filesystem' : hostVolumeModeFor(parameters);
  const storageClassName = hostStorageClassFor(parameters, input.defaultHostStorageClass);
  const annotations: Record<string, string> = {};
  if (volumeId !== name) annotations[CSI_NAME_ANNOTATION] = name;
  if (volumeMode === 'Filesystem' && !input.shared && input.hostProvisioner !== LONGHORN_DRIVER)
    annotations[VOLUME_FOR_VM_ANNOTATION] = 'true';
  const body: HostPvc = {
    metadata: {
      name: volumeId,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      volumeMode,
      resources: { requests: { storage: formatBytes(requestBytes) } },
      ...(storageClassName ? { storageClassName } : {}),
    },
  };
  return { volumeId, body, requestBytes, capacityBytes: asked, volumeMode };
}

/**
 * Why an existing host PVC of the planned name is not the volume CreateVolume asks for, or
 * undefined when it is (a retry: CreateVolume must then succeed). It is when it was made for the
 * same CreateVolume name, has the planned volumeMode and host StorageClass (the parameters a
 * request can differ in: `hostVolumeMode`, `hostStorageClass`), and its request covers the size
 * asked for within the limit.
 */
export function incompatibility(
  existing: HostPvc,
  plan: HostPvcPlan,
  input: PlanInput,
): string | undefined {
  const madeFor = existing.metadata?.annotations?.[CSI_NAME_ANNOTATION];
  if (plan.volumeId !== input.name && madeFor !== input.name)
    return `host PVC ${plan.volumeId} was not made for volume name "${input.name}"`;
  const mode = existing.spec?.volumeMode ?? 'Filesystem';
  if (mode !== plan.volumeMode)
    return `host PVC ${plan.volumeId} is ${mode} mode, this request makes ${plan.volumeMode} mode`;
  const className = plan.body.spec?.storageClassName;
  const existingClass = existing.spec?.storageClassName;
  if (className !== undefined && existingClass !== undefined && existingClass !== className)
    return `host PVC ${plan.volumeId} is on the host StorageClass ${existingClass}, this request makes it on ${className}`;
  const size = requestBytesOf(existing) ?? 0n;
  if (size < input.capacity.requiredBytes)
    return `host PVC ${plan.volumeId} requests ${formatBytes(size)}, less than the ${formatBytes(input.capacity.requiredBytes)} asked for`;
  if (input.capacity.limitBytes !== 0n && size > input.capacity.limitBytes)
    return `host PVC ${plan.volumeId} requests ${formatBytes(size)}, above the limit ${formatBytes(input.capacity.limitBytes)}`;
  return undefined;
}
