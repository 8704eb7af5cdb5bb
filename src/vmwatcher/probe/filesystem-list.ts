import type { KubeConfig } from '@kubernetes/client-node';
import { requestJson } from '../../kube/index.js';
import type { VirtualMachineInstance } from '../../model/index.js';
import { GuestProbeError } from './guest-probe-error.js';
import { parseAgentReturn } from './virsh-output.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';
import type { DiskIdentity } from './vmi-disk.js';

/** One guest filesystem as KubeVirt's `filesystemlist` subresource lists it (docs/tracker.md "Upstream facts"). */
export interface GuestFilesystem {
  diskName: string | undefined;
  mountPoint: string | undefined;
  totalBytes: bigint | undefined;
  /** The disks under it: their serial and bus (KubeVirt v1.2+). */
  disks: Array<{ serial: string | undefined; busType: string | undefined }>;
}

/**
 * The port through which a guest probe falls back to the filesystems the guest agent reports
 * when the guest refuses guest-exec: the VMI's `filesystemlist` subresource in production
 * (apiFilesystemList), the agent's guest-get-fsinfo through virsh in the lab (agentFilesystemList).
 */
export interface FilesystemList {
  read(
    vmi: VirtualMachineInstance,
    host: VirshHost,
    signal: AbortSignal,
  ): Promise<GuestFilesystem[]>;
}

function bigintOf(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  return undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The subresource's answer (`{"items": [...]}`) as filesystems. Pure. */
export function parseFilesystemList(answer: unknown): GuestFilesystem[] {
  const items = (answer as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.map((item: Record<string, unknown>) => ({
    diskName: text(item['diskName']),
    mountPoint: text(item['mountPoint']),
    totalBytes: bigintOf(item['totalBytes']),
    disks: (Array.isArray(item['disk'])
      ? (item['disk'] as Array<Record<string, unknown>>)
      : []
    ).map((disk) => ({ serial: text(disk['serial']), busType: text(disk['busType']) })),
  }));
}

/** guest-get-fsinfo's `return` in the subresource's shape (what virt-launcher turns it into). Pure. */
export function filesystemsOfFsinfo(value: unknown): GuestFilesystem[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: Record<string, unknown>) => ({
    diskName: text(item['name']),
    mountPoint: text(item['mountpoint']),
    totalBytes: bigintOf(item['total-bytes']),
    disks: (Array.isArray(item['disk'])
      ? (item['disk'] as Array<Record<string, unknown>>)
      : []
    ).map((disk) => ({ serial: text(disk['serial']), busType: text(disk['bus-type']) })),
  }));
}

/**
 * The filesystem on a VMI disk: one whose disks carry the disk's serial, else (no serial set)
 * one whose disk name is the target or a partition of it (vda, vda1, vdap1). The largest when
 * several match; undefined when none does or none has a size. Pure.
 */
export function filesystemOfDisk(
  filesystems: readonly GuestFilesystem[],
  disk: DiskIdentity,
): GuestFilesystem | undefined {
  const matches = filesystems.filter((fs) => {
    if (fs.totalBytes === undefined) return false;
    if (disk.serial !== undefined) return fs.disks.some((d) => d.serial === disk.serial);
    if (disk.target === undefined || fs.diskName === undefined) return false;
    const target = disk.target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`^${target}(p?\\d+)?$`).test(fs.diskName);
  });
  return matches.reduce<GuestFilesystem | undefined>(
    (largest, fs) => (largest === undefined || fs.totalBytes! > largest.totalBytes! ? fs : largest),
    undefined,
  );
}

/** GET the VMI's `filesystemlist` subresource (KubeVirt's API; 409 unless the agent is connected). */
export function apiFilesystemList(kubeConfig: KubeConfig): FilesystemList {
  return {
    read: async (vmi, _host, signal) => {
      const namespace = vmi.metadata?.namespace ?? '';
      const name = vmi.metadata?.name ?? '';
      try {
        const answer = await requestJson<unknown>(kubeConfig, {
          method: 'GET',
          path: `/apis/subresources.kubevirt.io/v1/namespaces/${encodeURIComponent(namespace)}/virtualmachineinstances/${encodeURIComponent(name)}/filesystemlist`,
          signal,
        });
        return parseFilesystemList(answer);
      } catch (error) {
        throw new GuestProbeError(
          'PROBE_FILESYSTEM_LIST_FAILED',
          `reading the filesystemlist of the VMI ${namespace}/${name} failed: ${(error as Error).message.split('\n')[0]}`,
          { cause: error },
        );
      }
    },
  };
}

/** guest-get-fsinfo through `virsh qemu-agent-command` (the lab's stand-in for virt-launcher's filesystemlist). */
export function agentFilesystemList(
  transport: VirshTransport,
  domain: (vmi: VirtualMachineInstance) => string,
): FilesystemList {
  return {
    read: async (vmi, host, signal) => {
      const answer = await transport.virsh(
        host,
        ['qemu-agent-command', domain(vmi), JSON.stringify({ execute: 'guest-get-fsinfo' })],
        signal,
      );
      return filesystemsOfFsinfo(parseAgentReturn(answer, 'guest-get-fsinfo'));
    },
  };
}
