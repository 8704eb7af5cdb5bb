import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from '../../log/index.js';
import type { HostApi } from '../host/host-api.js';
import { pickNodeId } from './pick-node-id.js';

/** The MAC addresses of this machine's network interfaces (/sys/class/net/<if>/address). */
export async function readGuestMacs(sysfsRoot = '/sys'): Promise<string[]> {
  const directory = `${sysfsRoot}/class/net`;
  const names = await readdir(directory).catch(() => [] as string[]);
  const macs = await Promise.all(
    names.map((name) => readFile(`${directory}/${name}/address`, 'utf8').catch(() => '')),
  );
  return macs.map((mac) => mac.trim()).filter((mac) => mac !== '');
}

/**
 * The node id when none is given: pickNodeId over this machine's MAC addresses and the host's
 * VMIs, with `nodeName` (default: the hostname) as the fallback, also when the host cannot be
 * asked (logged).
 */
export async function discoverNodeId(
  host: HostApi | undefined,
  log: Logger,
  nodeName = hostname(),
  macs: () => Promise<string[]> = readGuestMacs,
): Promise<string> {
  if (host === undefined) return nodeName;
  try {
    const [own, vmis] = await Promise.all([macs(), host.listVmis()]);
    return pickNodeId(nodeName, own, vmis);
  } catch (error) {
    log.warn(
      { err: error instanceof Error ? error.message : String(error), nodeName },
      'could not match this node to a VirtualMachineInstance on the host; using the node name as node id',
    );
    return nodeName;
  }
}
