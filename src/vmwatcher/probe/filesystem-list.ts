import type { VirtualMachineInstance } from '../../model/index.js';
import type { PciAddress } from './domain-disks.js';
import { parseAgentReturn } from './virsh-output.js';
import type { VirshHost, VirshTransport } from './virsh-transport.js';

/** Where the guest agent says a filesystem's disk sits (QGA GuestDiskAddress; docs/tracker.md "Guest probe"). */
export interface GuestDiskAddress {
  serial: string | undefined;
  /** virtio, scsi, sata, ide, nvme... as the agent names the bus. */
  busType: string | undefined;
  /** The PCI function of the disk's controller: the virtio-blk device itself, or the SCSI/SATA controller. */
  pciController: PciAddress | undefined;
  bus: number | undefined;
  target: number | undefined;
  unit: number | undefined;
  /** The guest's device node (/dev/sdb, \\.\PhysicalDrive1). */
  dev: string | undefined;
}

/** One guest filesystem as the agent's guest-get-fsinfo lists it. */
export interface GuestFilesystem {
  diskName: string | undefined;
  mountPoint: string | undefined;
  /** The filesystem's size, not its disk's. */
  totalBytes: bigint | undefined;
  /** The disks under it. */
  disks: GuestDiskAddress[];
}

/**
 * The port through which a guest probe reads the filesystems the guest agent reports, when the
 * guest refuses guest-exec or has no shell (agentFilesystemList: guest-get-fsinfo through the
 * probe's own virsh, which gives each disk's address).
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

/** A non-negative integer; the agent writes -1 where it could not fill a field. */
function indexOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function pciOf(value: unknown): PciAddress | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const [domain, bus, slot, fn] = ['domain', 'bus', 'slot', 'function'].map((key) =>
    indexOf(record[key]),
  );
  if (domain === undefined || bus === undefined || slot === undefined || fn === undefined)
    return undefined;
  return { domain, bus, slot, function: fn };
}

function diskAddressOf(disk: Record<string, unknown>): GuestDiskAddress {
  return {
    serial: text(disk['serial']),
    busType: text(disk['bus-type']),
    pciController: pciOf(disk['pci-controller']),
    bus: indexOf(disk['bus']),
    target: indexOf(disk['target']),
    unit: indexOf(disk['unit']),
    dev: text(disk['dev']),
  };
}

/** guest-get-fsinfo's `return` (QGA GuestFilesystemInfo entries) as filesystems. Pure. */
export function filesystemsOfFsinfo(value: unknown): GuestFilesystem[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: Record<string, unknown>) => ({
    diskName: text(item['name']),
    mountPoint: text(item['mountpoint']),
    totalBytes: bigintOf(item['total-bytes']),
    disks: (Array.isArray(item['disk'])
      ? (item['disk'] as Array<Record<string, unknown>>)
      : []
    ).map(diskAddressOf),
  }));
}

/** guest-get-fsinfo through `virsh qemu-agent-command`, where the probe runs virsh (the launcher, or the lab's machine). */
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
