import { join } from 'node:path';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';
import { downloadGoModule } from '../../../src/controlplane/guest-tools/download-go-module.js';
import { readCrds } from '../../../src/controlplane/install-crds.js';
import { stageLonghornSnapshotClass } from './host-scene.js';

/**
 * Harvester's module at the release whose VolumeRemoteBackup and VolumeRemoteRestore
 * harvester-csi-driver builds against (its go.mod: github.com/harvester/harvester v1.8.0); its
 * deploy/charts/harvester-crd/templates holds the CRDs every Harvester installs.
 */
export const HARVESTER_MODULE = {
  module: 'github.com/harvester/harvester',
  version: 'v1.8.0',
} as const;

const REMOTE_BACKUP_CRDS = [
  'volumeremotebackups.harvesterhci.io',
  'volumeremoterestores.harvesterhci.io',
];

/** The VolumeRemoteBackup and VolumeRemoteRestore CRDs as Harvester ships them, fetched through the Go module proxy (cached by go). */
export async function readRemoteBackupCrds(): Promise<V1CustomResourceDefinition[]> {
  const dir = await downloadGoModule(
    HARVESTER_MODULE.module,
    HARVESTER_MODULE.version,
    goBuildEnv(process.env),
  );
  const crds = await readCrds(join(dir, 'deploy', 'charts', 'harvester-crd', 'templates'));
  return crds.filter((crd) => REMOTE_BACKUP_CRDS.includes(crd.metadata?.name ?? ''));
}

/** Installs Harvester's VolumeRemoteBackup and VolumeRemoteRestore CRDs and waits until they serve. */
export async function installRemoteBackupCrds(kubeConfig: KubeConfig): Promise<void> {
  await installCrds(kubeConfig, await readRemoteBackupCrds());
}

/** The host VolumeSnapshotClass of Longhorn's backups, as Harvester's csi-driver-config default names it (`backupVolumeSnapshotClassName`). */
export const HOST_BACKUP_SNAPSHOT_CLASS = 'longhorn';

/**
 * A Harvester that serves backup snapshots: the two CRDs, and the VolumeSnapshotClass of
 * Longhorn's backups (driver.longhorn.io, deletionPolicy Delete, Longhorn's `type: bak`).
 */
export async function stageHostBackups(kubeConfig: KubeConfig): Promise<void> {
  await installRemoteBackupCrds(kubeConfig);
  await stageLonghornSnapshotClass(kubeConfig, HOST_BACKUP_SNAPSHOT_CLASS, 'bak');
}
