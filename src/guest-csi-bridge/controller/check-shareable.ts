import { LONGHORN_DRIVER } from '../../settings/index.js';
import { CsiError } from '../errors/csi-error.js';
import type { HostApi } from '../host/host-api.js';

/**
 * Throws CSI_UNSUPPORTED_CAPABILITY unless the host can serve a shared (RWX) volume: it serves
 * Harvester's NetworkFilesystems (Harvester's driver offers MULTI_NODE_MULTI_WRITER only then)
 * and the host StorageClass is Longhorn's (its share manager is the NFS server; a StorageClass
 * whose provisioner cannot be read, or the host's default, is left to the host).
 */
export async function checkShareable(
  host: HostApi,
  className: string | undefined,
  provisioner: string | undefined,
): Promise<void> {
  if (!(await host.networkFilesystemsServed()))
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      "shared (MULTI_NODE_MULTI_WRITER) volumes need Harvester's NetworkFilesystems (networkfilesystems.harvesterhci.io in harvester-system), which the host does not serve to these credentials",
    );
  if (provisioner !== undefined && provisioner !== LONGHORN_DRIVER)
    throw new CsiError(
      'CSI_UNSUPPORTED_CAPABILITY',
      `shared (MULTI_NODE_MULTI_WRITER) volumes are Longhorn RWX volumes: the host StorageClass ${className ?? ''} is provisioned by ${provisioner}, not ${LONGHORN_DRIVER}`,
    );
}
