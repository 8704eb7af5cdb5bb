import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * The paths and names kubelet's CSI volume plugin (pkg/volume/csi, Kubernetes v1.33) gives a
 * volume, written as kubelet writes them.
 */

/** csi_attacher.go makeDeviceMountPath: <kubelet>/plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount. */
export function deviceMountPath(kubeletDir: string, driver: string, volumeHandle: string): string {
  const sha = createHash('sha256').update(volumeHandle).digest('hex');
  return join(kubeletDir, 'plugins', 'kubernetes.io', 'csi', driver, sha, 'globalmount');
}

/**
 * csi_mounter.go getTargetPath + GetCSIMounterPath: the pod's volume directory of the
 * kubernetes.io/csi plugin (EscapeQualifiedName: "/" -> "~"), named after the PV, then "mount".
 */
export function podVolumePath(kubeletDir: string, podUid: string, pvName: string): string {
  return join(kubeletDir, 'pods', podUid, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
}

/** csi_attacher.go getAttachmentName: csi-<sha256(volumeHandle + driver + nodeName)>. */
export function attachmentName(volumeHandle: string, driver: string, nodeName: string): string {
  return `csi-${createHash('sha256').update(`${volumeHandle}${driver}${nodeName}`).digest('hex')}`;
}

/** The unique volume name kubelet reports in node.status.volumesInUse: kubernetes.io/csi/<driver>^<handle> (csi_plugin.go GetVolumeName). */
export function uniqueVolumeName(driver: string, volumeHandle: string): string {
  return `kubernetes.io/csi/${driver}^${volumeHandle}`;
}
