/**
 * `voe csi` in a guest cluster with the real callers of a CSI driver: external-provisioner,
 * external-attacher, csi-snapshotter and external-resizer (the chart's flags), snapshot-controller,
 * kube-controller-manager's PV binder and attach-detach controllers, on a guest control plane of
 * their own; the kubelet actor on loop devices; the host control plane with voe's webhook and the
 * host storage actor (with the host's snapshot controllers and Harvester's backup and restore
 * controllers; and, for an attach during a live migration of the node VM, the host migration
 * actor). `voe csi` talks to the host with the credentials Harvester generates for a
 * guest cluster, never admin. Each scenario is read from what the sidecars and controllers write
 * on the guest objects. Needs root.
 */
import { describe, it } from 'mocha';
import { assert } from 'chai';
import { readdir, readFile, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound, requestJson, resourcePath } from '../../../src/kube/index.js';
import { eventually } from '../../support/eventually.js';
import { GUEST_NAMESPACE, GUEST_NODE } from '../../support/guest-csi-bridge/host-scene.js';
import { HostMigrationActor } from '../../support/guest-csi-bridge/host-migration-actor.js';
import { requestCount } from '../../support/guest-csi-bridge/request-count.js';
import { useGuestCluster } from '../../support/guest-cluster/guest-cluster.js';
import { createCsiClient } from '../../support/guest-csi-bridge/csi-client.js';
import { createHarvesterVolume, GuestObjects } from '../../support/guest-cluster/guest-objects.js';

const MiB = 1024n * 1024n;
const WAIT_MS = 120_000;

async function hostPvc(
  kc: KubeConfig,
  name: string,
): Promise<{ status?: { capacity?: { storage?: string } } } | undefined> {
  return requestJson<{ status?: { capacity?: { storage?: string } } }>(kc, {
    method: 'GET',
    path: resourcePath({
      group: '',
      version: 'v1',
      plural: 'persistentvolumeclaims',
      namespace: GUEST_NAMESPACE,
      name,
    }),
  }).catch((e: unknown) => {
    if (isNotFound(e)) return undefined;
    throw e;
  });
}

async function hostPvcVolume(kc: KubeConfig, name: string): Promise<string | undefined> {
  const pvc = await requestJson<{ spec?: { volumeName?: string } }>(kc, {
    method: 'GET',
    path: resourcePath({
      group: '',
      version: 'v1',
      plural: 'persistentvolumeclaims',
      namespace: GUEST_NAMESPACE,
      name,
    }),
  });
  return pvc.spec?.volumeName;
}

async function hostVmVolumes(kc: KubeConfig, vm = GUEST_NODE): Promise<string[]> {
  const spec = await requestJson<{
    spec?: { template?: { spec?: { volumes?: Array<{ name: string }> } } };
  }>(kc, {
    method: 'GET',
    path: resourcePath({
      group: 'kubevirt.io',
      version: 'v1',
      plural: 'virtualmachines',
      namespace: GUEST_NAMESPACE,
      name: vm,
    }),
  });
  return (spec.spec?.template?.spec?.volumes ?? []).map((v) => v.name);
}

async function filesystemBytes(path: string): Promise<bigint> {
  const stats = await statfs(path, { bigint: true });
  return stats.blocks * stats.bsize;
}

describe('guest CSI bridge: a guest cluster with the real sidecars and controllers', function () {
  this.timeout(10 * 60_000);
  const cluster = useGuestCluster();
  const objects = (): GuestObjects => new GuestObjects(cluster.guest.kubeConfig);

  /** Runs `check` until it holds; on a timeout the programs' logs are in the message. */
  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    try {
      await eventually(check, WAIT_MS, what);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await cluster.logs()}`, { cause: error });
    }
  }

  /** Provisioned, bound, attached and published for a pod; the PV's name and the pod's uid. */
  async function volumeInUse(
    claim: string,
    size: string,
    storageClass: string,
  ): Promise<{ pv: string; podUid: string }> {
    await objects().createPvc(claim, size, storageClass);
    await until(
      `PVC ${claim} Bound`,
      async () => (await objects().pvc(claim)).status?.phase === 'Bound',
    );
    const pv = (await objects().pvOf(claim)).metadata.name;
    const pod = await objects().createPod(`${claim}-app`, claim);
    await until(
      `PV ${pv} published for the pod`,
      async () => cluster.kubelet.targetPath(pv, pod.metadata.uid) !== undefined,
    );
    return { pv, podUid: pod.metadata.uid };
  }

  describe('a volume of the chart StorageClass (validated host provider)', () => {
    const claim = 'data';
    let pv = '';
    let podUid = '';

    it('is provisioned: the host PVC exists and the guest PVC is bound', async () => {
      await objects().createPvc(claim, '320Mi', 'harvester');
      await until(
        'the PVC Bound',
        async () => (await objects().pvc(claim)).status?.phase === 'Bound',
      );
      const guestPv = await objects().pvOf(claim);
      pv = guestPv.metadata.name;
      assert.strictEqual(
        guestPv.metadata.annotations?.['pv.kubernetes.io/provisioned-by'],
        'driver.harvesterhci.io',
      );
      assert.strictEqual(guestPv.spec.csi.driver, 'driver.harvesterhci.io');
      assert.exists(await hostPvc(cluster.host.kubeConfig, guestPv.spec.csi.volumeHandle));
    });

    it("is attached: the VolumeAttachment is attached through a hotplug into the node's VM", async () => {
      const pod = await objects().createPod('app', claim);
      podUid = pod.metadata.uid;
      await until('the VolumeAttachment attached', async () =>
        (await objects().attachmentsOf(pv)).some((va) => va.status?.attached === true),
      );
      const [va] = await objects().attachmentsOf(pv);
      assert.strictEqual(va!.spec.nodeName, GUEST_NODE);
      assert.include(
        await hostVmVolumes(cluster.host.kubeConfig),
        (await objects().pv(pv)).spec.csi.volumeHandle,
      );
      await until(
        'the volume published for the pod',
        async () => cluster.kubelet.targetPath(pv, podUid) !== undefined,
      );
    });

    it('grows: the PVC reaches the new capacity through NodeExpand, and the filesystem grew', async () => {
      const target = cluster.kubelet.targetPath(pv, podUid)!;
      const before = await filesystemBytes(target);
      await objects().request(claim, '384Mi');
      await until(
        'the PV at 384Mi (the resizer)',
        async () => (await objects().pv(pv)).spec.capacity.storage === '384Mi',
      );
      await until('the PVC capacity at 384Mi (kubelet after NodeExpand)', async () => {
        const pvc = await objects().pvc(claim);
        return (
          pvc.status?.capacity?.storage === '384Mi' &&
          pvc.status.allocatedResourceStatuses === undefined
        );
      });
      assert.isAtLeast(cluster.kubelet.nodeExpansions.get(pv) ?? 0, 1);
      assert.isAbove(Number(await filesystemBytes(target)), Number(before + 48n * MiB));
    });

    it('stays ControllerResizeInProgress while the host is unreachable, and completes once it answers', async () => {
      await cluster.host.stopApiServer();
      let restarted = false;
      try {
        await objects().request(claim, '448Mi');
        await until(
          'ControllerResizeInProgress',
          async () =>
            (await objects().pvc(claim)).status?.allocatedResourceStatuses?.storage ===
            'ControllerResizeInProgress',
        );
        const pvc = await objects().pvc(claim);
        assert.notInclude(
          (pvc.status?.conditions ?? []).map((c) => c.type),
          'ControllerResizeError',
        );
        await cluster.host.startApiServer();
        restarted = true;
        await until(
          'the PVC capacity at 448Mi',
          async () => (await objects().pvc(claim)).status?.capacity?.storage === '448Mi',
        );
      } finally {
        if (!restarted) await cluster.host.startApiServer();
      }
    });

    it('grows once when voe csi restarts mid-expansion (one host request)', async () => {
      const volumeId = (await objects().pv(pv)).spec.csi.volumeHandle;
      const writesBefore = cluster.hostActor.requestWrites(volumeId);
      cluster.hostActor.hold(volumeId);
      try {
        await objects().request(claim, '512Mi');
        await until(
          'the host PVC request at 512Mi',
          async () => cluster.hostActor.requestWrites(volumeId) > writesBefore,
        );
        await cluster.killCsi();
      } finally {
        cluster.hostActor.release(volumeId);
      }
      await until(
        'the PVC capacity at 512Mi',
        async () => (await objects().pvc(claim)).status?.capacity?.storage === '512Mi',
      );
      assert.strictEqual(cluster.hostActor.requestWrites(volumeId), writesBefore + 1);
    });

    it('is deleted: the pod and the PVC gone, the host PVC is removed', async () => {
      const volumeId = (await objects().pv(pv)).spec.csi.volumeHandle;
      await objects().deletePod('app');
      await until('the pod gone (kubelet tore the volume down)', () =>
        objects().gone('pod', 'app'),
      );
      await until(
        'the VolumeAttachment gone',
        async () => (await objects().attachmentsOf(pv)).length === 0,
      );
      assert.notInclude(await hostVmVolumes(cluster.host.kubeConfig), volumeId);
      await objects().deletePvc(claim);
      await until('the PV gone', () => objects().gone('pv', pv));
      await until(
        'the host PVC gone',
        async () => (await hostPvc(cluster.host.kubeConfig, volumeId)) === undefined,
      );
    });
  });

  it('snapshots a volume in use and restores it once its pod is gone: the guest VolumeSnapshot is a host VolumeSnapshot, and a PVC from it holds the data', async () => {
    const source = await volumeInUse('snap-source', '320Mi', 'harvester');
    const written = 'written before the snapshot\n';
    await writeFile(
      join(cluster.kubelet.targetPath(source.pv, source.podUid)!, 'note.txt'),
      written,
    );
    await objects().createVolumeSnapshot('snap-1', 'snap-source', 'harvester-snapshot');
    await until(
      'the VolumeSnapshot ready (snapshot-controller, csi-snapshotter, CreateSnapshot)',
      async () => (await objects().volumeSnapshot('snap-1')).status?.readyToUse === true,
    );
    const snapshot = await objects().volumeSnapshot('snap-1');
    const content = await objects().volumeSnapshotContent(
      snapshot.status!.boundVolumeSnapshotContentName!,
    );
    const handle = content.status!.snapshotHandle!;
    const hostSnapshot = await requestJson<{
      spec?: { source?: { persistentVolumeClaimName?: string } };
    }>(cluster.host.kubeConfig, {
      method: 'GET',
      path: resourcePath({
        group: 'snapshot.storage.k8s.io',
        version: 'v1',
        plural: 'volumesnapshots',
        namespace: GUEST_NAMESPACE,
        name: handle,
      }),
    });
    assert.strictEqual(
      hostSnapshot.spec?.source?.persistentVolumeClaimName,
      (await objects().pv(source.pv)).spec.csi.volumeHandle,
    );

    // The source's pod goes first: the copy carries the source filesystem's UUID, and xfs refuses
    // to mount a second filesystem of a UUID it has mounted.
    await objects().deletePod('snap-source-app');
    await until('the source pod gone (kubelet tore the volume down)', () =>
      objects().gone('pod', 'snap-source-app'),
    );
    await objects().createPvc('snap-restored', '320Mi', 'harvester', 'snap-1');
    await until(
      'the restored PVC Bound',
      async () => (await objects().pvc('snap-restored')).status?.phase === 'Bound',
    );
    const restoredPv = (await objects().pvOf('snap-restored')).metadata.name;
    const pod = await objects().createPod('snap-restored-app', 'snap-restored');
    await until(
      'the restored volume published',
      async () => cluster.kubelet.targetPath(restoredPv, pod.metadata.uid) !== undefined,
    );
    const target = cluster.kubelet.targetPath(restoredPv, pod.metadata.uid)!;
    assert.strictEqual(await readFile(join(target, 'note.txt'), 'utf8'), written);

    await objects().deleteVolumeSnapshot('snap-1');
    await until('the host VolumeSnapshot deleted', async () =>
      requestJson(cluster.host.kubeConfig, {
        method: 'GET',
        path: resourcePath({
          group: 'snapshot.storage.k8s.io',
          version: 'v1',
          plural: 'volumesnapshots',
          namespace: GUEST_NAMESPACE,
          name: handle,
        }),
      }).then(
        () => false,
        (error: unknown) => isNotFound(error),
      ),
    );
  });

  it("backs a volume up through a VolumeSnapshotClass of type backup and restores it: Harvester's VolumeRemoteBackup and VolumeRemoteRestore, and a PVC from it holds what was written before the backup", async () => {
    const host = cluster.host.kubeConfig;
    // The class docs/csi.md shows beside the chart's harvester-snapshot.
    await objects().createVolumeSnapshotClass('harvester-backup', { type: 'backup' });
    const source = await volumeInUse('backup-source', '320Mi', 'harvester');
    const sourceDir = cluster.kubelet.targetPath(source.pv, source.podUid)!;
    const written = 'written before the backup\n';
    await writeFile(join(sourceDir, 'note.txt'), written);
    await objects().createVolumeSnapshot('backup-1', 'backup-source', 'harvester-backup');
    await until(
      'the VolumeSnapshot ready (snapshot-controller, csi-snapshotter, CreateSnapshot until Harvester is done)',
      async () => (await objects().volumeSnapshot('backup-1')).status?.readyToUse === true,
    );
    const snapshot = await objects().volumeSnapshot('backup-1');
    const content = await objects().volumeSnapshotContent(
      snapshot.status!.boundVolumeSnapshotContentName!,
    );
    const handle = content.status!.snapshotHandle!;
    assert.match(handle, new RegExp(`^backup:${GUEST_NAMESPACE}/`));
    const backupPath = resourcePath({
      group: 'harvesterhci.io',
      version: 'v1beta1',
      plural: 'volumeremotebackups',
      namespace: GUEST_NAMESPACE,
      name: handle.slice(handle.indexOf('/') + 1),
    });
    const backup = await requestJson<{
      spec?: { source?: string };
      status?: { success?: boolean; handle?: string };
    }>(host, { method: 'GET', path: backupPath });
    assert.strictEqual(backup.spec?.source, (await objects().pv(source.pv)).spec.csi.volumeHandle);
    assert.isTrue(backup.status?.success);
    assert.match(
      backup.status?.handle ?? '',
      /^bak:\/\//,
      "Longhorn's backup on the backup target",
    );
    await writeFile(join(sourceDir, 'later.txt'), 'written after the backup\n');

    // As for a snapshot: the source's pod goes first (xfs refuses a second mount of one UUID).
    await objects().deletePod('backup-source-app');
    await until('the source pod gone (kubelet tore the volume down)', () =>
      objects().gone('pod', 'backup-source-app'),
    );
    await objects().createPvc('backup-restored', '320Mi', 'harvester', 'backup-1');
    await until(
      'the restored PVC Bound (CreateVolume until the VolumeRemoteRestore made the host PVC)',
      async () => (await objects().pvc('backup-restored')).status?.phase === 'Bound',
    );
    const restoredPv = await objects().pvOf('backup-restored');
    const restore = await requestJson<{ spec?: { from?: string } }>(host, {
      method: 'GET',
      path: resourcePath({
        group: 'harvesterhci.io',
        version: 'v1beta1',
        plural: 'volumeremoterestores',
        namespace: GUEST_NAMESPACE,
        name: restoredPv.spec.csi.volumeHandle,
      }),
    });
    assert.strictEqual(restore.spec?.from, handle.slice('backup:'.length));
    const pod = await objects().createPod('backup-restored-app', 'backup-restored');
    await until(
      'the restored volume published',
      async () =>
        cluster.kubelet.targetPath(restoredPv.metadata.name, pod.metadata.uid) !== undefined,
    );
    const target = cluster.kubelet.targetPath(restoredPv.metadata.name, pod.metadata.uid)!;
    assert.strictEqual(await readFile(join(target, 'note.txt'), 'utf8'), written);
    assert.notInclude(await readdir(target), 'later.txt', 'written after the backup');

    await objects().deleteVolumeSnapshot('backup-1');
    await until('the host VolumeRemoteBackup deleted', async () =>
      requestJson(host, { method: 'GET', path: backupPath }).then(
        () => false,
        (error: unknown) => isNotFound(error),
      ),
    );
  });

  it('attaches once when voe csi restarts mid-attach (one hotplug request)', async () => {
    const claim = 'restart-attach';
    await objects().createPvc(claim, '320Mi', 'harvester');
    await until(
      'the PVC Bound',
      async () => (await objects().pvc(claim)).status?.phase === 'Bound',
    );
    const pv = await objects().pvOf(claim);
    const volumeId = pv.spec.csi.volumeHandle;
    const patchesBefore = await requestCount(cluster.host.kubeConfig, {
      resource: 'virtualmachines',
      verb: 'PATCH',
    });
    await objects().createPod(`${claim}-app`, claim);
    await until('the hotplug requested on the host VM', async () =>
      (await hostVmVolumes(cluster.host.kubeConfig)).includes(volumeId),
    );
    await cluster.killCsi();
    await until('the VolumeAttachment attached', async () =>
      (await objects().attachmentsOf(pv.metadata.name)).some((va) => va.status?.attached === true),
    );
    const volumes = await hostVmVolumes(cluster.host.kubeConfig);
    assert.strictEqual(volumes.filter((v) => v === volumeId).length, 1);
    assert.strictEqual(
      (await requestCount(cluster.host.kubeConfig, {
        resource: 'virtualmachines',
        verb: 'PATCH',
      })) - patchesBefore,
      1,
    );
  });

  it('refuses growth on an unvalidated provider, recovers when lowered, grows once validated', async () => {
    await objects().createStorageClass('harvester-nfs', {
      hostStorageClass: 'nfs',
      'csi.storage.k8s.io/fstype': cluster.fsType,
    });
    const claim = 'nfs-data';
    const { pv } = await volumeInUse(claim, '320Mi', 'harvester-nfs');
    await objects().request(claim, '384Mi');
    await until(
      'ControllerResizeInfeasible (the resizer)',
      async () =>
        (await objects().pvc(claim)).status?.allocatedResourceStatuses?.storage ===
        'ControllerResizeInfeasible',
    );
    // The user lowers the request (the API server allows any size above the capacity): the
    // resizer takes the lower size instead of the refused one.
    await objects().request(claim, '352Mi');
    await until(
      'the allocated size lowered (the resizer)',
      async () => (await objects().pvc(claim)).status?.allocatedResources?.storage === '352Mi',
    );
    await requestJson(cluster.host.kubeConfig, {
      method: 'PATCH',
      path: '/apis/harvesterhci.io/v1beta1/settings/csi-online-expand-validation',
      body: { value: '{"driver.longhorn.io":true,"nfs.csi.k8s.io":true}' },
      contentType: 'application/merge-patch+json',
    });
    await objects().request(claim, '384Mi');
    await until(
      'the PVC capacity at 384Mi',
      async () => (await objects().pvc(claim)).status?.capacity?.storage === '384Mi',
    );
    assert.strictEqual((await objects().pv(pv)).spec.capacity.storage, '384Mi');
  });

  it('attaches, expands, detaches and deletes a volume harvester-csi-driver created', async () => {
    const host = cluster.host.kubeConfig;
    const volumeId = 'pvc-5f0c8a52-7d1e-4b7a-9d3c-1a2b3c4d5e6f';
    // The host PVC as harvester-csi-driver's CreateVolume makes it (Block on the host default, RWX).
    await requestJson(host, {
      method: 'POST',
      path: resourcePath({
        group: '',
        version: 'v1',
        plural: 'persistentvolumeclaims',
        namespace: GUEST_NAMESPACE,
      }),
      body: {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: volumeId },
        spec: {
          accessModes: ['ReadWriteMany'],
          volumeMode: 'Block',
          resources: { requests: { storage: '320Mi' } },
        },
      },
    });
    await until(
      'the host PVC bound',
      async () => (await hostPvc(host, volumeId))?.status?.capacity?.storage === '320Mi',
    );
    const claim = 'from-harvester';
    await createHarvesterVolume(cluster.guest.kubeConfig, claim, volumeId, '320Mi', cluster.fsType);
    await until(
      'the PVC Bound',
      async () => (await objects().pvc(claim)).status?.phase === 'Bound',
    );
    const pod = await objects().createPod(`${claim}-app`, claim);
    await until('the VolumeAttachment attached', async () =>
      (await objects().attachmentsOf(volumeId)).some((va) => va.status?.attached === true),
    );
    await until(
      'the volume published',
      async () => cluster.kubelet.targetPath(volumeId, pod.metadata.uid) !== undefined,
    );
    await objects().request(claim, '384Mi');
    await until(
      'the PVC capacity at 384Mi',
      async () => (await objects().pvc(claim)).status?.capacity?.storage === '384Mi',
    );
    assert.strictEqual((await hostPvc(host, volumeId))?.status?.capacity?.storage, '384Mi');
    await objects().deletePod(`${claim}-app`);
    await until(
      'the VolumeAttachment gone',
      async () => (await objects().attachmentsOf(volumeId)).length === 0,
    );
    assert.notInclude(await hostVmVolumes(host), volumeId);
    await objects().deletePvc(claim);
    await until('the host PVC gone', async () => (await hostPvc(host, volumeId)) === undefined);
  });

  it('attaches during a host live migration of the node VM: the attach waits until the migration settled', async () => {
    const host = cluster.host.kubeConfig;
    const migration = new HostMigrationActor({ kubeConfig: host, namespace: GUEST_NAMESPACE });
    await migration.start();
    try {
      const claim = 'during-migration';
      const { pv } = await volumeInUse(claim, '320Mi', 'harvester');
      const volumeId = (await objects().pv(pv)).spec.csi.volumeHandle;
      const hostPv = (await hostPvcVolume(host, volumeId)) ?? '';
      await until('the host VolumeAttachment of the hotplug attached', async () =>
        migration.attachmentsOf(hostPv).some((va) => va.status?.attached === true),
      );
      const source = migration.attachmentsOf(hostPv)[0]!.spec?.nodeName ?? '';
      // The host starts moving the guest node's VM: its volumes attached on both host nodes.
      await migration.startMigration(GUEST_NODE, 'harvester-2');
      // The workload restarts meanwhile: detached, then attached again for its new pod.
      await objects().deletePod(`${claim}-app`);
      await until(
        'the guest VolumeAttachment gone',
        async () => (await objects().attachmentsOf(pv)).length === 0,
      );
      const pod = await objects().createPod(`${claim}-app-2`, claim);
      await until(
        'the new guest VolumeAttachment',
        async () => (await objects().attachmentsOf(pv)).length === 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const [waiting] = await objects().attachmentsOf(pv);
      assert.notStrictEqual(
        waiting!.status?.attached,
        true,
        'not attached while the host migrates',
      );
      assert.notInclude(await hostVmVolumes(host), volumeId, 'not hotplugged meanwhile');
      await migration.completeMigration(GUEST_NODE);
      await until('the guest VolumeAttachment attached', async () =>
        (await objects().attachmentsOf(pv)).some((va) => va.status?.attached === true),
      );
      await until(
        'the volume published for the new pod',
        async () => cluster.kubelet.targetPath(pv, pod.metadata.uid) !== undefined,
      );
      assert.include(await hostVmVolumes(host), volumeId);
      assert.deepStrictEqual(
        migration.attachmentsOf(hostPv).map((va) => va.spec?.nodeName),
        ['harvester-2'],
        `moved from ${source}: attached on the VMI's new host node only`,
      );
      assert.lengthOf(migration.errors, 0, String(migration.errors[0]));
    } finally {
      await migration.stop();
    }
  });

  // A suite of its own, defined last: mocha runs a suite's tests before its child suites, and
  // the guest node stays dead.
  describe('a dead guest node', () => {
    it("a dead guest node: tainted out of service by voe csi's node monitor, its pod force-deleted, its volume unplugged from its VM and detached, free for another node", async () => {
      const host = cluster.host.kubeConfig;
      const claim = 'on-dead-node';
      const { pv } = await volumeInUse(claim, '320Mi', 'harvester');
      const volumeId = (await objects().pv(pv)).spec.csi.volumeHandle;
      // The node dies: its kubelet stops posting, and on the host its VMI is gone.
      await cluster.kubelet.stop();
      await requestJson(host, {
        method: 'DELETE',
        path: resourcePath({
          group: 'kubevirt.io',
          version: 'v1',
          plural: 'virtualmachineinstances',
          namespace: GUEST_NAMESPACE,
          name: GUEST_NODE,
        }),
      });
      // The node lifecycle controller's tryUpdateNodeHealth (pkg/controller/nodelifecycle), once
      // the node's grace period is over: Ready Unknown.
      await requestJson(cluster.guest.kubeConfig, {
        method: 'PATCH',
        path: resourcePath(
          { group: '', version: 'v1', plural: 'nodes', name: GUEST_NODE },
          'status',
        ),
        contentType: 'application/strategic-merge-patch+json',
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'Unknown',
                reason: 'NodeStatusUnknown',
                message: 'Kubelet stopped posting node status.',
                lastHeartbeatTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
                lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
              },
            ],
          },
        },
      });
      await until('the node tainted out of service (the node monitor)', async () =>
        ((await objects().node(GUEST_NODE)).spec?.taints ?? []).some(
          (t) => t.key === 'node.kubernetes.io/out-of-service' && t.effect === 'NoExecute',
        ),
      );
      await until(
        'the volume unplugged from the dead VM',
        async () => !(await hostVmVolumes(host)).includes(volumeId),
      );
      // Its owner deletes the pod (a StatefulSet would, to run it elsewhere); the dead kubelet
      // never finishes it: the pod GC force-deletes it, as the node is out of service.
      await objects().deletePod(`${claim}-app`);
      await until('the pod gone (the pod GC)', () => objects().gone('pod', `${claim}-app`));
      await until(
        'the VolumeAttachment gone (attach-detach force-detaches, the attacher unpublishes)',
        async () => (await objects().attachmentsOf(pv)).length === 0,
      );
      // Free to move: published onto another guest node's VM.
      const other = 'guest-node-2';
      for (const [plural, body] of [
        [
          'virtualmachines',
          {
            spec: {
              runStrategy: 'Always',
              template: { spec: { domain: { devices: { disks: [] } }, volumes: [] } },
            },
          },
        ],
        ['virtualmachineinstances', { spec: { domain: { devices: {} } } }],
      ] as const)
        await requestJson(host, {
          method: 'POST',
          path: resourcePath({
            group: 'kubevirt.io',
            version: 'v1',
            plural,
            namespace: GUEST_NAMESPACE,
          }),
          body: {
            apiVersion: 'kubevirt.io/v1',
            kind: plural === 'virtualmachines' ? 'VirtualMachine' : 'VirtualMachineInstance',
            metadata: { name: other },
            ...body,
          },
        });
      const csi = createCsiClient(cluster.socket);
      try {
        await until('published on the other node', async () => {
          await csi.call('Controller', 'ControllerPublishVolume', {
            volume_id: volumeId,
            node_id: other,
            volume_capability: {
              mount: { fs_type: cluster.fsType, mount_flags: [] },
              access_mode: { mode: 'SINGLE_NODE_WRITER' },
            },
            readonly: false,
          });
          return true;
        });
      } finally {
        csi.close();
      }
      assert.include(await hostVmVolumes(host, other), volumeId);
    });
  });
});
