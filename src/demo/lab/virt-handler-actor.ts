import type { KubeConfig } from '@kubernetes/client-node';
import { parseQuantityCeil, requestJson, resourcePath } from '../../kube/index.js';
import { waitUntil } from '../../wait/index.js';
import { expectedGuestBytes } from '../../vmwatcher/index.js';
import type { VirtualMachineInstance } from '../../model/index.js';
import type { LabVm } from './lab-vm.js';
import { VmLabError } from './vm-lab-error.js';

const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };

function storageOf(record: Record<string, unknown> | undefined): bigint | undefined {
  const raw = record?.['storage'];
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  try {
    return parseQuantityCeil(String(raw));
  } catch {
    return undefined;
  }
}

/**
 * The lab's virt-handler and virt-launcher (a test actor; docs/tracker.md "Upstream
 * facts"): waits until the VMI, read through the API server, shows the claim's new size in its
 * persistentVolumeClaimInfo (capacity and requests at least `size`), then grows the disk's backing
 * file to what KubeVirt computes (the device's size in Block mode; floor_1MiB((1 - overhead) x
 * size) for a Filesystem disk.img) and runs `virsh blockresize` on the domain, as
 * LibvirtDomainManager.syncDisks does. Resolves with the bytes it resized to.
 */
export async function virtHandlerExpands(
  kubeConfig: KubeConfig,
  lab: LabVm,
  options: {
    namespace: string;
    vmiName: string;
    claimName: string;
    target: string;
    size: string;
    timeoutMs?: number;
    signal?: AbortSignal;
  },
): Promise<bigint> {
  const wanted = parseQuantityCeil(options.size);
  let info: NonNullable<
    NonNullable<VirtualMachineInstance['status']>['volumeStatus']
  >[number]['persistentVolumeClaimInfo'];
  const outcome = await waitUntil(
    async () => {
      const vmi = await requestJson<VirtualMachineInstance>(kubeConfig, {
        method: 'GET',
        path: resourcePath({ ...VMIS, namespace: options.namespace, name: options.vmiName }),
      });
      info = vmi.status?.volumeStatus?.find(
        (entry) => entry.persistentVolumeClaimInfo?.claimName === options.claimName,
      )?.persistentVolumeClaimInfo;
      const capacity = storageOf(info?.capacity);
      const requests = storageOf(info?.requests) ?? capacity;
      return (
        capacity !== undefined && requests !== undefined && capacity >= wanted && requests >= wanted
      );
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 50,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  if (outcome !== 'ok')
    throw new VmLabError(
      'VMLAB_DOMAIN_FAILED',
      `the VMI ${options.namespace}/${options.vmiName} did not show ${options.size} for ${options.claimName} (${outcome})`,
    );
  const capacity = storageOf(info?.capacity)!;
  const bytes = expectedGuestBytes({
    volumeMode: info?.volumeMode,
    request: storageOf(info?.requests) ?? capacity,
    capacity,
    filesystemOverhead: info?.filesystemOverhead,
  });
  await lab.growBackingFile(options.target, bytes);
  await lab.blockResize(options.target, bytes);
  return bytes;
}
