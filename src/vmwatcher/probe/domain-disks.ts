/** A PCI function as libvirt and Linux name it: domain, bus, slot, function. */
export interface PciAddress {
  domain: number;
  bus: number;
  slot: number;
  function: number;
}

/** A SCSI/SATA drive address in libvirt's domain XML: which controller, and where on it. */
export interface DriveAddress {
  controller: number;
  bus: number;
  target: number;
  unit: number;
}

/** One disk of a running domain as `virsh dumpxml` shows it. */
export interface DomainDisk {
  /** The libvirt target (vda, sdb): the VMI's volumeStatus target. */
  target: string;
  /** virtio, scsi or sata. */
  bus: string | undefined;
  serial: string | undefined;
  /** virtio-blk: the disk's own PCI function. */
  pci: PciAddress | undefined;
  /** SCSI and SATA: its place on its controller. */
  drive: DriveAddress | undefined;
  /** SCSI and SATA: the PCI function of the controller it sits on, when the XML gives one. */
  controllerPci: PciAddress | undefined;
}

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of tag.matchAll(/([\w-]+)=(?:'([^']*)'|"([^"]*)")/g))
    found[match[1]!] = match[2] ?? match[3] ?? '';
  return found;
}

function number(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = text.startsWith('0x') ? Number.parseInt(text.slice(2), 16) : Number(text);
  return Number.isInteger(value) ? value : undefined;
}

function pciOf(attrs: Record<string, string>): PciAddress | undefined {
  if (attrs['type'] !== 'pci') return undefined;
  const parts = [attrs['domain'], attrs['bus'], attrs['slot'], attrs['function']].map(number);
  if (parts.some((part) => part === undefined)) return undefined;
  const [domain, bus, slot, fn] = parts as [number, number, number, number];
  return { domain, bus, slot, function: fn };
}

function driveOf(attrs: Record<string, string>): DriveAddress | undefined {
  if (attrs['type'] !== 'drive') return undefined;
  const parts = [attrs['controller'], attrs['bus'], attrs['target'], attrs['unit']].map(number);
  if (parts.some((part) => part === undefined)) return undefined;
  const [controller, bus, target, unit] = parts as [number, number, number, number];
  return { controller, bus, target, unit };
}

/** The first `<name .../>` or `<name ...>` tag inside `block`, as attributes. */
function tag(block: string, name: string): Record<string, string> | undefined {
  const match = new RegExp(`<${name}\\b([^>]*)>`).exec(block);
  return match ? attributes(match[1]!) : undefined;
}

/**
 * The disks of `virsh dumpxml <domain>` with the addresses that tie them to the guest's devices
 * (reference: libvirt's domain XML `<address type='pci' domain= bus= slot= function=/>` for
 * virtio-blk, `<address type='drive' controller= bus= target= unit=/>` for SCSI and SATA disks,
 * whose controller of the same type and index carries the PCI address). Pure.
 */
export function parseDomainDisks(xml: string): DomainDisk[] {
  const controllers = new Map<string, PciAddress>();
  for (const match of xml.matchAll(/<controller\b([^>]*)>([\s\S]*?)<\/controller>/g)) {
    const attrs = attributes(match[1]!);
    const address = tag(match[2]!, 'address');
    const pci = address ? pciOf(address) : undefined;
    if (pci) controllers.set(`${attrs['type']}:${attrs['index']}`, pci);
  }
  const disks: DomainDisk[] = [];
  for (const match of xml.matchAll(/<disk\b[^>]*>([\s\S]*?)<\/disk>/g)) {
    const block = match[1]!;
    const target = tag(block, 'target');
    if (!target?.['dev']) continue;
    const address = tag(block, 'address');
    const serial = /<serial>([^<]*)<\/serial>/.exec(block)?.[1]?.trim();
    const drive = address ? driveOf(address) : undefined;
    const bus = target['bus'];
    disks.push({
      target: target['dev'],
      bus,
      serial: serial || undefined,
      pci: address ? pciOf(address) : undefined,
      drive,
      controllerPci: drive
        ? controllers.get(`${bus === 'sata' ? 'sata' : 'scsi'}:${drive.controller}`)
        : undefined,
    });
  }
  return disks;
}

/** A PCI function as Linux writes it in sysfs: 0000:07:00.0. */
export function sysfsPciName(pci: PciAddress): string {
  const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
  return `${hex(pci.domain, 4)}:${hex(pci.bus, 2)}:${hex(pci.slot, 2)}.${pci.function.toString(16)}`;
}

/** Where a domain disk sits, for messages: its PCI function, or its controller's and its place there. */
export function describeDomainAddress(disk: DomainDisk): string {
  if (disk.pci) return `PCI ${sysfsPciName(disk.pci)}`;
  if (disk.drive && disk.controllerPci)
    return `controller ${sysfsPciName(disk.controllerPci)} bus ${disk.drive.bus} target ${disk.drive.target} unit ${disk.drive.unit}`;
  return 'no address';
}

/** Whether two PCI functions are the same one. */
export function samePci(a: PciAddress | undefined, b: PciAddress | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.domain === b.domain &&
    a.bus === b.bus &&
    a.slot === b.slot &&
    a.function === b.function
  );
}
