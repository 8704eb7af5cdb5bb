import type { BlockDeviceId } from '../model/block-devices.js';
import { parseBlkidExport } from '../parse/parse-blkid-export.js';
import type { ResizerPorts } from '../model/resizer-ports.js';
import { toolFailure } from '../model/tool-failure.js';

/** What blkid found on a device. */
export interface Signature {
  filesystem: string | null;
  partitionTable: string | null;
  uuid: string | null;
}

/** The signature of a device on which blkid finds nothing. */
export function emptySignature(): Signature {
  return { filesystem: null, partitionTable: null, uuid: null };
}

/**
 * What is on the device, by blkid's low-level probe (read-only). `spawned` gets blkid's pid, so
 * that the look for other users of the device leaves it alone.
 */
export async function probeSignature(
  ports: Pick<ResizerPorts, 'runner' | 'probeMs'>,
  id: BlockDeviceId,
  spawned?: Set<number>,
): Promise<Signature> {
  const args = ['-p', '-s', 'TYPE', '-s', 'PTTYPE', '-s', 'UUID', '-o', 'export', id.realPath];
  const result = await ports.runner.run('blkid', args, {
    timeoutMs: ports.probeMs,
    ...(spawned ? { onSpawn: (pid: number) => spawned.add(pid) } : {}),
  });
  // blkid exits 2 when it finds nothing (an unformatted device), and also when it could not
  // look (it then says why on stderr, e.g. "error: /dev/sdb: Permission denied").
  if (result.exitCode === 2 && result.stderr.trim() === '') return emptySignature();
  if (result.exitCode !== 0)
    throw toolFailure('blkid', args, result, `detecting what is on ${id.path}`);
  const signature = parseBlkidExport(result.stdout);
  return {
    filesystem: signature.type,
    partitionTable: signature.partitionTable,
    uuid: signature.uuid,
  };
}
