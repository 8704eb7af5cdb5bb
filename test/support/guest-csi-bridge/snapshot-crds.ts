import { join } from 'node:path';
import type { KubeConfig, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { installCrds } from '../../../src/controlplane/index.js';
import { goBuildEnv } from '../../../src/controlplane/go-build-env.js';
import { downloadGoModule } from '../../../src/controlplane/guest-tools/download-go-module.js';
import { readCrds } from '../../../src/controlplane/install-crds.js';

/** external-snapshotter's client module, whose config/crd holds the snapshot CRDs as upstream ships them. */
export const SNAPSHOT_CLIENT = {
  module: 'github.com/kubernetes-csi/external-snapshotter/client/v8',
  version: 'v8.7.0',
} as const;

/**
 * The CRDs of the client module (snapshot.storage.k8s.io: VolumeSnapshot, VolumeSnapshotContent,
 * VolumeSnapshotClass; groupsnapshot.storage.k8s.io: the volume group snapshots, which
 * snapshot-controller looks for), fetched through the Go module proxy (cached by go).
 */
export async function readSnapshotCrds(): Promise<V1CustomResourceDefinition[]> {
  const dir = await downloadGoModule(
    SNAPSHOT_CLIENT.module,
    SNAPSHOT_CLIENT.version,
    goBuildEnv(process.env),
  );
  const crds = await readCrds(join(dir, 'config', 'crd'));
  return crds.filter((crd) => crd.spec?.group?.endsWith('snapshot.storage.k8s.io'));
}

/** Installs the snapshot CRDs on the cluster and waits until they serve. */
export async function installSnapshotCrds(kubeConfig: KubeConfig): Promise<void> {
  await installCrds(kubeConfig, await readSnapshotCrds());
}
