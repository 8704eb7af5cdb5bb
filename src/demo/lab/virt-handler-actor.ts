import type { KubeConfig } from '@kubernetes/client-node';
import { parseQuantityCeil, requestJson, resourcePath } from '../../kube/index.js';
import { waitUntil } from '../../wait/index.js';
import type { VirtualMachineInstance } from '../../model/index.js';
import type { LabVm } from './lab-vm.js';
import { possibleGuestSize } from './possible-guest-size.js';
import { usableSpace } from './usable-space.js';
import { VmLabError } from './vm-lab-error.js';

const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };

type ClaimInfo = NonNullable<
  NonNullable<VirtualMachineInstance['status']>['volumeStatus']
>[number]['persistentVolumeClaimInfo'];

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
 * facts"): waits until the VMI, read through the API server, shows a capacity of at least
 * `size` for the claim in its persistentVolumeClaimInfo (virt-handler hands that capacity to
 * virt-launcher's domain sync), then sizes the disk as KubeVirt v1.8
 * pkg/virt-launcher/virtwrap/manager.go does and runs `virsh blockresize` (LibvirtDomainManager's
 * online expansion, QMP block_resize, which also grows a disk.img file): Block mode, to the
 * device's real size; Filesystem mode, to possibleGuestSize over the VMI's capacity and overhead
 * and what statfs says is usable on the volume's filesystem. It never looks at what the tracker
 * expects. Resolves with the bytes it resized to.
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
  let info: ClaimInfo;
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
      return capacity !== undefined && capacity >= wanted;
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
      `the VMI ${options.namespace}/${options.vmiName} did not show a capacity of ${options.size} for ${options.claimName} (${outcome})`,
    );
  const volume = lab.volume(options.target);
  const bytes =
    volume.volumeMode === 'Block'
      ? await volume.deviceBytes()
      : possibleGuestSize({
          capacity: storageOf(info?.capacity)!,
          filesystemOverhead: info?.filesystemOverhead,
          usable: await usableSpace(volume.file),
        });
  await lab.blockResize(options.target, bytes);
  return bytes;
}
