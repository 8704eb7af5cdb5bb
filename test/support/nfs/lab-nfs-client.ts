import { startLabVm, startLibvirt, type LabVm } from '../../../src/demo/index.js';
import { USER_NETWORK_GUEST_ADDRESS } from '../../../src/demo/lab/guest-init.js';
import type { Mounter } from '../../../src/guest-csi-bridge/node/mounter.js';
import { GUEST_NAMESPACE, GUEST_NODE } from '../guest-csi-bridge/host-scene.js';
import { testCacheDir } from '../use-control-plane.js';
import { guestNfsMounter } from './guest-nfs-mounter.js';

/** The lab guest as the guest nodes' NFS client, and the node plugins' Mounter into it. */
export interface LabNfsClient {
  vm: LabVm;
  mounter: Mounter;
  /** Destroys the VM, then lets libvirt go. */
  stop(): Promise<void>;
}

/**
 * Starts libvirt and the lab VM as the host scene's guest node VM (no disks; a NIC on QEMU's
 * user-mode network, the host at 10.0.2.2): the NFSv4 client of the tests whose shares nfs-ganesha
 * serves on this machine, whose kernel has no NFS client. What was started is stopped when a step
 * fails.
 */
export async function startLabNfsClient(): Promise<LabNfsClient> {
  const libvirt = await startLibvirt();
  let vm: LabVm;
  try {
    vm = await startLabVm({
      cacheDir: testCacheDir(),
      namespace: GUEST_NAMESPACE,
      name: GUEST_NODE,
      disks: [],
      userNetwork: true,
    });
  } catch (error) {
    await libvirt.stop();
    throw error;
  }
  return {
    vm,
    mounter: guestNfsMounter(vm, USER_NETWORK_GUEST_ADDRESS),
    async stop() {
      try {
        await vm.destroy();
      } finally {
        await libvirt.stop();
      }
    },
  };
}
