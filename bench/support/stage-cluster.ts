/**
 * Stages a Harvester-sized cluster through a real API server for the benches that run voe's
 * commands against one: bound Block PVCs with their PVs on a CSI StorageClass, VMs and their
 * running VMIs, and per VM its virt-launcher pod (and, with two disks, a hotplug pod holding the
 * second disk), each object written as a user or its controller writes it.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { pvc, vm, vmi, kubeVirt, storageClass } from '../../src/demo/staged-objects.js';
import { requestJson, resourcePath } from '../../src/kube/index.js';
import type { Pod, VirtualMachineInstance } from '../../src/model/index.js';
import { hotplugPod, launcherPod, persistentVolume } from '../../src/demo/actors/staged-pods.js';
import { pool } from './pool.js';

const NAMESPACES = 10;
const CONCURRENCY = 24;
const CLASS = 'bench-csi';
const DRIVER = 'bench.csi.voe.dev';

type Json = Record<string, unknown>;

/** What to stage: `vms` VMs, each with `disks` PVCs (the second one hotplugged). */
export interface ClusterShape {
  vms: number;
  disks: 1 | 2;
}

/** The namespace, VM and PVC names of VM `i` (`disk` 0 or 1). */
export const ns = (i: number): string => `bench-${i % NAMESPACES}`;
export const vmName = (i: number): string => `vm-${String(i).padStart(5, '0')}`;
export const claimName = (i: number, disk: number): string => `${vmName(i)}-disk-${disk}`;

function post(
  kc: KubeConfig,
  ref: Parameters<typeof resourcePath>[0],
  body: unknown,
): Promise<Json> {
  return requestJson<Json>(kc, {
    method: 'POST',
    path: resourcePath(ref),
    body,
    timeoutMs: 120_000,
  });
}

function patchStatus(
  kc: KubeConfig,
  ref: Parameters<typeof resourcePath>[0],
  status: unknown,
): Promise<Json> {
  return requestJson<Json>(kc, {
    method: 'PATCH',
    path: resourcePath(ref, 'status'),
    contentType: 'application/merge-patch+json',
    body: { status },
    timeoutMs: 120_000,
  });
}

/** The object as a user creates it: no uid, resourceVersion or status. */
function forCreate<T extends object>(object: T): T {
  const copy = structuredClone(object) as T & { metadata?: Json; status?: unknown };
  if (copy.metadata) {
    delete copy.metadata['uid'];
    delete copy.metadata['resourceVersion'];
  }
  delete copy.status;
  return copy;
}

/** Stages `shape` into the cluster of `kc`, logging its progress every 500 VMs. */
export async function stageCluster(
  kc: KubeConfig,
  shape: ClusterShape,
  log: (line: string) => void,
): Promise<void> {
  for (let i = 0; i < NAMESPACES; i++)
    await post(
      kc,
      { group: '', version: 'v1', plural: 'namespaces' },
      { metadata: { name: ns(i) } },
    );
  await post(
    kc,
    { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses' },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      ...forCreate(storageClass(CLASS, DRIVER)),
    },
  );
  await post(
    kc,
    { group: '', version: 'v1', plural: 'namespaces' },
    { metadata: { name: 'harvester-system' } },
  );
  await post(
    kc,
    { group: 'kubevirt.io', version: 'v1', plural: 'kubevirts', namespace: 'harvester-system' },
    {
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      ...forCreate(kubeVirt()),
    },
  );
  const indexes = Array.from({ length: shape.vms }, (_, i) => i);
  let done = 0;
  const started = Date.now();
  await pool(indexes, CONCURRENCY, async (i) => {
    const namespace = ns(i);
    const name = vmName(i);
    const claims = Array.from({ length: shape.disks }, (_, disk) => claimName(i, disk));
    for (const claim of claims) {
      const volumeName = `pvc-${namespace}-${claim}`;
      await post(
        kc,
        { group: '', version: 'v1', plural: 'persistentvolumes' },
        forCreate(
          persistentVolume({
            name: volumeName,
            namespace,
            claimName: claim,
            capacity: '10Gi',
            driver: DRIVER,
          }),
        ),
      );
      await post(
        kc,
        { group: '', version: 'v1', plural: 'persistentvolumeclaims', namespace },
        forCreate(
          pvc(claim, {
            namespace,
            className: CLASS,
            provisioner: DRIVER,
            volumeName,
            volumeMode: 'Block',
          }),
        ),
      );
      await patchStatus(
        kc,
        { group: '', version: 'v1', plural: 'persistentvolumeclaims', namespace, name: claim },
        {
          phase: 'Bound',
          accessModes: ['ReadWriteMany'],
          capacity: { storage: '10Gi' },
        },
      );
    }
    const volumes = [
      { name: 'disk-0', persistentVolumeClaim: { claimName: claims[0] } },
      ...claims.slice(1).map((claim) => ({
        name: claim,
        persistentVolumeClaim: { claimName: claim, hotpluggable: true },
      })),
    ];
    await post(
      kc,
      { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines', namespace },
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        ...forCreate(vm(name, { namespace, volumes: volumes.slice(0, 1), templates: [] })),
      },
    );
    const instance = vmi(name, { namespace, volumes }) as VirtualMachineInstance;
    const created = (await post(
      kc,
      { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances', namespace },
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        ...forCreate(instance),
      },
    )) as VirtualMachineInstance;
    await patchStatus(
      kc,
      { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances', namespace, name },
      instance.status,
    );
    const launcher = launcherPod(created, {
      name: `virt-launcher-${name}-x7k2p`,
      uid: '',
      volumes: [{ name: 'disk-0', claimName: claims[0]!, volumeMode: 'Block' }],
    });
    const pod = (await post(
      kc,
      { group: '', version: 'v1', plural: 'pods', namespace },
      forCreate(launcher),
    )) as Pod;
    if (claims[1])
      await post(
        kc,
        { group: '', version: 'v1', plural: 'pods', namespace },
        forCreate(
          hotplugPod(pod, {
            name: `hp-volume-${name}`,
            uid: '',
            volumes: [{ name: claims[1], claimName: claims[1], hold: 'device' }],
          }),
        ),
      );
    done++;
    if (done % 500 === 0)
      log(`staged ${done} of ${shape.vms} VMs (${Math.round((Date.now() - started) / 1000)} s)`);
  });
}
