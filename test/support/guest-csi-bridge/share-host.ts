import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { GUEST_NAMESPACE, stageHostScene, writeHostKubeconfig } from './host-scene.js';
import { HostShareActor, type ShareServer } from './host-share-actor.js';
import { HostStorageActor } from './host-storage-actor.js';
import { installNetworkFilesystemCrd } from './network-filesystem-crd.js';

/** A host that serves shared volumes: the scene, the NetworkFilesystem CRD and both actors running. */
export interface ShareHost {
  /** The host kubeconfig the driver gets (the scene's guest namespace as its context's). */
  driverKubeConfig: KubeConfig;
  /** The directory the driver's --device-dir names (shares hotplug nothing: it stays empty). */
  deviceDirectory: string;
  storage: HostStorageActor;
  shares: HostShareActor;
  /** Stops both actors (the share actor first: it stops what `server` exports). */
  stop(): Promise<void>;
}

/**
 * Stages the host scene and the NetworkFilesystem CRD on `kubeConfig`'s API server, and starts
 * the storage actor (binding and growing PVCs, no loop devices: a share is not hotplugged) and
 * the share actor over `server`, with their files in `directory`.
 */
export async function startShareHost(
  kubeConfig: KubeConfig,
  directory: string,
  server: ShareServer,
): Promise<ShareHost> {
  await stageHostScene(kubeConfig);
  await installNetworkFilesystemCrd(kubeConfig);
  const driverKubeConfig = await writeHostKubeconfig(
    kubeConfig,
    join(directory, 'host.kubeconfig'),
  );
  const deviceDirectory = join(directory, 'by-id');
  const storage = new HostStorageActor({
    kubeConfig,
    namespace: GUEST_NAMESPACE,
    deviceDirectory,
    loopDevices: false,
  });
  const shares = new HostShareActor({ kubeConfig, server });
  await storage.start();
  await shares.start();
  return {
    driverKubeConfig,
    deviceDirectory,
    storage,
    shares,
    async stop() {
      await shares.stop();
      await storage.stop();
    },
  };
}
