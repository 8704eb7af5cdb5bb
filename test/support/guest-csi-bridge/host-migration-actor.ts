import { createHash } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../eventually.js';
import {
  Informer,
  isAlreadyExists,
  isConflict,
  isNotFound,
  requestJson,
  resourcePath,
} from '../../../src/kube/index.js';
import type {
  HostPvc,
  HostVm,
  HostVmi,
  HostVolumeAttachment,
} from '../../../src/guest-csi-bridge/host/host-objects.js';
import { ReconcileLoop } from './reconcile-loop.js';

const PODS = { group: '', version: 'v1', plural: 'pods' };
const PVCS = { group: '', version: 'v1', plural: 'persistentvolumeclaims' };
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };
const VAS = { group: 'storage.k8s.io', version: 'v1', plural: 'volumeattachments' };
const VMS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachines' };
const VMIS = { group: 'kubevirt.io', version: 'v1', plural: 'virtualmachineinstances' };
const MERGE = 'application/merge-patch+json';
/** KubeVirt's label of hotplug attachment pods (pkg/virt-controller/services rendering). */
const HOTPLUG_LABEL = { key: 'kubevirt.io', value: 'hotplug-disk' };

interface Pod {
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: Array<{ kind?: string; name?: string }>;
  };
  spec?: {
    nodeName?: string;
    volumes?: Array<{ persistentVolumeClaim?: { claimName?: string } }>;
  };
  status?: { phase?: string };
}

interface Va extends HostVolumeAttachment {
  metadata?: HostVolumeAttachment['metadata'] & {
    finalizers?: string[];
    deletionTimestamp?: string;
  };
}

/** kubernetes pkg/volume/csi/csi_attacher.go getAttachmentName: `csi-` + sha256(volume + driver + node). */
export function attachmentName(pv: string, driver: string, node: string): string {
  return `csi-${createHash('sha256').update(`${pv}${driver}${node}`).digest('hex')}`;
}

/** external-attacher pkg/controller/util.go GetFinalizerName (SanitizeDriverName of the driver). */
function attacherFinalizer(driver: string): string {
  const name = driver.replace(/[^a-zA-Z0-9-]/g, '-');
  return `external-attacher/${name.endsWith('-') ? `${name}X` : name}`;
}

const claimsOf = (pod: Pod): string[] =>
  (pod.spec?.volumes ?? []).map((v) => v.persistentVolumeClaim?.claimName ?? '').filter(Boolean);

/**
 * Plays the host side of a KubeVirt live migration of a guest node VM, and what the host's nodes
 * do with the volumes of the pods they run, in one host namespace (level-based, from what it
 * watches):
 * - kube-scheduler's binding (DefaultBinder, `pods/binding`) of KubeVirt's hotplug attachment
 *   pods: to the node of the virt-launcher pod that owns one, else (the storage actor's pods) to
 *   the node of the VMI whose VM lists its claim, where KubeVirt's node affinity puts it;
 * - the kubelet's end of a pod's graceful deletion (status_manager.go syncPod: delete with grace
 *   period 0 once its containers stopped);
 * - kube-controller-manager's attach-detach controller (reconciler.go reconcile: detaches first,
 *   then attachDesiredVolumes) through the CSI attacher (csi_attacher.go Attach creates the
 *   VolumeAttachment of (PV, driver, node), Detach deletes it) for every CSI PV a pod bound to a
 *   node mounts; and external-attacher on those (csi_handler.go csiAttach: its finalizer and the
 *   node-id annotation, then markAsAttached; csiDetach: markAsDetached removes the finalizer);
 * - on `startMigration`, KubeVirt's virt-controller migration controller: the target
 *   virt-launcher pod (createTargetPod), bound to the target node, the target's hotplug
 *   attachment pod (createAttachmentPod), then handleTargetPodHandoff's VMI
 *   `status.migrationState`;
 * - on `completeMigration`, virt-handler on the target (MigrationTargetController.updateStatus,
 *   ackMigrationCompletion: `status.nodeName` = the target, the end timestamp; with the source's
 *   completed mark), then the VMI controller's cleanupAttachmentPods deleting the source's
 *   attachment pods.
 */
export class HostMigrationActor {
  readonly #kubeConfig: KubeConfig;
  readonly #namespace: string;
  readonly #pods: Informer;
  readonly #attachments: Informer;
  readonly #pvDrivers = new Map<string, string>();
  #migrations = 0;
  readonly errors: unknown[] = [];
  readonly #loop = new ReconcileLoop(
    () => this.#reconcile(),
    (error) => this.errors.push(error),
  );

  constructor(options: { kubeConfig: KubeConfig; namespace: string }) {
    this.#kubeConfig = options.kubeConfig;
    this.#namespace = options.namespace;
    this.#pods = new Informer({
      kubeConfig: this.#kubeConfig,
      resource: { ...PODS, namespace: this.#namespace },
    });
    this.#attachments = new Informer({ kubeConfig: this.#kubeConfig, resource: VAS });
    for (const informer of [this.#pods, this.#attachments])
      for (const event of ['add', 'update', 'delete', 'sync'] as const)
        informer.on(event, () => this.#loop.kick());
  }

  async start(): Promise<void> {
    await Promise.all([this.#pods.start(), this.#attachments.start()]);
    this.#loop.kick();
  }

  /** The host VolumeAttachments of `pv` as the actor last saw them. */
  attachmentsOf(pv: string): Va[] {
    return (this.#attachments.list() as Va[]).filter(
      (va) => va.spec?.source?.persistentVolumeName === pv,
    );
  }

  /** Resolves once the actor has handled everything it has seen so far. */
  async settled(): Promise<void> {
    await this.#loop.settled();
  }

  /**
   * KubeVirt's migration controller starts moving VMI `vmi` to host node `target`: the target
   * virt-launcher pod, bound there; the target's attachment pod of the VMI's hotplugged volumes,
   * bound there; the handoff in the VMI's status. Resolves once the target's volumes are attached.
   */
  async startMigration(vmi: string, target: string): Promise<void> {
    const instance = await this.#request<HostVmi>(
      'GET',
      resourcePath({ ...VMIS, namespace: this.#namespace, name: vmi }),
    );
    const vm = await this.#request<HostVm>(
      'GET',
      resourcePath({ ...VMS, namespace: this.#namespace, name: vmi }),
    );
    const hotplugged = new Set(
      (instance.status?.volumeStatus ?? []).filter((s) => s.hotplugVolume).map((s) => s.name ?? ''),
    );
    const claims = (vm.spec?.template?.spec?.volumes ?? [])
      .filter((v) => v.persistentVolumeClaim?.hotpluggable && hotplugged.has(v.name ?? ''))
      .map((v) => v.persistentVolumeClaim?.claimName ?? '');
    const round = ++this.#migrations;
    const launcher = `virt-launcher-${vmi}-m${round}`;
    const launcherPod = await this.#createPod({
      metadata: {
        name: launcher,
        labels: {
          'kubevirt.io': 'virt-launcher',
          'kubevirt.io/created-by': instance.metadata?.uid ?? vmi,
        },
      },
      spec: { containers: [{ name: 'compute', image: 'registry.invalid/virt-launcher:test' }] },
    });
    await this.#bind(launcher, target);
    const attachmentPod = `hp-volume-${vmi}-m${round}`;
    await this.#createPod({
      metadata: {
        name: attachmentPod,
        labels: { [HOTPLUG_LABEL.key]: HOTPLUG_LABEL.value },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: launcher, uid: launcherPod.metadata?.uid ?? '' },
        ],
      },
      spec: {
        containers: [{ name: 'hotplug-disk', image: 'registry.invalid/virt-launcher:test' }],
        volumes: claims.map((claimName, i) => ({
          name: `hotplug-${i}`,
          persistentVolumeClaim: { claimName },
        })),
      },
    });
    // The scheduler binds it next to its launcher pod (#schedule), as KubeVirt's affinity asks.
    this.#loop.kick();
    await this.#request(
      'PATCH',
      resourcePath({ ...VMIS, namespace: this.#namespace, name: vmi }, 'status'),
      {
        status: {
          migrationState: {
            migrationUID: `migration-${vmi}-${round}`,
            targetNode: target,
            sourceNode: instance.status?.nodeName,
            targetPod: launcher,
            // A new state, as handleTargetPodHandoff writes it: nothing of the last migration left.
            endTimestamp: null,
            completed: null,
            failed: null,
          },
        },
      },
      MERGE,
    );
    await this.#until(
      claims,
      (va) => va.spec?.nodeName === target && va.status?.attached === true,
      `${claims.join(', ')} attached on ${target}`,
    );
  }

  /**
   * The migration of VMI `vmi` ends: the target's virt-handler acknowledges it (the VMI's node is
   * now the target), then the source's attachment pods are deleted. Resolves once their volumes
   * are detached from the source node.
   */
  async completeMigration(vmi: string): Promise<void> {
    const ref = { ...VMIS, namespace: this.#namespace, name: vmi };
    const instance = await this.#request<HostVmi>('GET', resourcePath(ref));
    const target = instance.status?.migrationState?.targetNode ?? '';
    await this.#request(
      'PATCH',
      resourcePath(ref, 'status'),
      {
        status: {
          nodeName: target,
          migrationState: { endTimestamp: new Date().toISOString(), completed: true },
        },
      },
      MERGE,
    );
    const vms = await this.#listVms();
    const claims = new Set<string>();
    for (const pod of this.#pods.list() as Pod[])
      if (
        this.#isHotplugPod(pod) &&
        pod.spec?.nodeName &&
        pod.spec.nodeName !== target &&
        this.#ofVmi(pod, vmi, vms)
      ) {
        claimsOf(pod).forEach((c) => claims.add(c));
        await this.#deletePod(pod.metadata?.name ?? '');
      }
    await this.#until(
      [...claims],
      (va) => va.spec?.nodeName === target,
      `${[...claims].join(', ')} detached from every node but ${target}`,
      true,
    );
  }

  /** Waits until every VolumeAttachment of the claims' PVs passes `ok` (and, unless `all`, one at least exists). */
  async #until(
    claims: string[],
    ok: (va: Va) => boolean,
    what: string,
    all = false,
  ): Promise<void> {
    const pvs = (await Promise.all(claims.map((c) => this.#pvOf(c)))).map((v) => v?.pv ?? '');
    await eventually(
      () =>
        pvs.every((pv) => {
          const vas = this.attachmentsOf(pv);
          return all ? vas.every(ok) : vas.some(ok);
        }),
      15_000,
      what,
    );
  }

  async #listVms(): Promise<HostVm[]> {
    return (
      (
        await this.#request<{ items?: HostVm[] }>(
          'GET',
          resourcePath({ ...VMS, namespace: this.#namespace }),
        )
      ).items ?? []
    );
  }

  async stop(): Promise<void> {
    await Promise.all([this.#pods.stop(), this.#attachments.stop()]);
    await this.#loop.stop();
  }

  #isHotplugPod(pod: Pod): boolean {
    return pod.metadata?.labels?.[HOTPLUG_LABEL.key] === HOTPLUG_LABEL.value;
  }

  /** Whether the attachment pod holds a claim VM `vmi` lists (KubeVirt ties it by owner; the storage actor's pods have none). */
  #ofVmi(pod: Pod, vmi: string, vms: HostVm[]): boolean {
    const owner = pod.metadata?.ownerReferences?.find((o) => o.kind === 'Pod')?.name;
    if (owner) return owner.startsWith(`virt-launcher-${vmi}-`);
    const vm = vms.find((v) => v.metadata?.name === vmi);
    return (vm?.spec?.template?.spec?.volumes ?? []).some((v) =>
      claimsOf(pod).includes(v.persistentVolumeClaim?.claimName ?? ''),
    );
  }

  async #request<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    return requestJson<T>(this.#kubeConfig, {
      method,
      path,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
    });
  }

  async #createPod(body: object): Promise<Pod> {
    return this.#request<Pod>('POST', resourcePath({ ...PODS, namespace: this.#namespace }), {
      apiVersion: 'v1',
      kind: 'Pod',
      ...body,
    });
  }

  /** kube-scheduler's DefaultBinder: POST pods/<pod>/binding. */
  async #bind(pod: string, node: string): Promise<void> {
    await this.#request(
      'POST',
      resourcePath({ ...PODS, namespace: this.#namespace, name: pod }, 'binding'),
      {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: pod },
        target: { apiVersion: 'v1', kind: 'Node', name: node },
      },
    );
  }

  async #deletePod(name: string, gracePeriodSeconds?: number): Promise<void> {
    await this.#request(
      'DELETE',
      resourcePath({ ...PODS, namespace: this.#namespace, name }),
      gracePeriodSeconds === undefined
        ? undefined
        : { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds },
    ).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }

  /** The CSI driver of the PV a claim of the namespace is bound to; undefined while it is not bound. */
  async #pvOf(claim: string): Promise<{ pv: string; driver: string } | undefined> {
    const pvc = await this.#request<HostPvc>(
      'GET',
      resourcePath({ ...PVCS, namespace: this.#namespace, name: claim }),
    ).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    const pv = pvc?.spec?.volumeName;
    if (!pv || pvc.status?.phase !== 'Bound') return undefined;
    let driver = this.#pvDrivers.get(pv);
    if (!driver) {
      const volume = await this.#request<{ spec?: { csi?: { driver?: string } } }>(
        'GET',
        resourcePath({ ...PVS, name: pv }),
      ).catch(() => undefined);
      driver = volume?.spec?.csi?.driver;
      if (!driver) return undefined;
      this.#pvDrivers.set(pv, driver);
    }
    return { pv, driver };
  }

  async #reconcile(): Promise<void> {
    const pods = this.#pods.list() as Pod[];
    await this.#schedule(pods);
    // The kubelet ends a graceful deletion once the pod's containers stopped (no containers run here).
    for (const pod of pods)
      if (pod.metadata?.deletionTimestamp && pod.spec?.nodeName)
        await this.#deletePod(pod.metadata.name ?? '', 0);
    const desired = new Map<string, { pv: string; driver: string; node: string }>();
    for (const pod of pods) {
      const node = pod.spec?.nodeName;
      if (!node || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      for (const claim of claimsOf(pod)) {
        const volume = await this.#pvOf(claim);
        if (volume)
          desired.set(attachmentName(volume.pv, volume.driver, node), { ...volume, node });
      }
    }
    const ours = new Set([...this.#pvDrivers.keys()]);
    const attachments = (this.#attachments.list() as Va[]).filter((va) =>
      ours.has(va.spec?.source?.persistentVolumeName ?? ''),
    );
    // reconciler.reconcile: detaches what no pod needs any more, first.
    for (const va of attachments) {
      const name = va.metadata?.name ?? '';
      if (va.metadata?.deletionTimestamp) {
        await this.#markAsDetached(va);
      } else if (!desired.has(name)) {
        await this.#request('DELETE', resourcePath({ ...VAS, name })).catch((e: unknown) => {
          if (!isNotFound(e)) throw e;
        });
      } else if (!va.status?.attached) {
        await this.#csiAttach(va);
      }
    }
    // attachDesiredVolumes: csiAttacher.Attach creates the VolumeAttachment.
    const existing = new Set(attachments.map((va) => va.metadata?.name ?? ''));
    for (const [name, { pv, driver, node }] of desired) {
      if (existing.has(name)) continue;
      await this.#request('POST', resourcePath(VAS), {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name },
        spec: { attacher: driver, nodeName: node, source: { persistentVolumeName: pv } },
      }).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    }
  }

  /** kube-scheduler for the hotplug attachment pods not bound yet. */
  async #schedule(pods: Pod[]): Promise<void> {
    const unbound = pods.filter(
      (p) => this.#isHotplugPod(p) && !p.spec?.nodeName && !p.metadata?.deletionTimestamp,
    );
    if (unbound.length === 0) return;
    const vms = await this.#listVms();
    for (const pod of unbound) {
      const owner = pod.metadata?.ownerReferences?.find((o) => o.kind === 'Pod')?.name;
      const ownerNode = owner
        ? pods.find((p) => p.metadata?.name === owner)?.spec?.nodeName
        : undefined;
      let node = ownerNode;
      if (!node) {
        const vm = vms.find((v) => this.#ofVmi(pod, v.metadata?.name ?? '', vms));
        if (vm) {
          const vmi = await this.#request<HostVmi>(
            'GET',
            resourcePath({ ...VMIS, namespace: this.#namespace, name: vm.metadata?.name ?? '' }),
          ).catch(() => undefined);
          node = vmi?.status?.nodeName;
        }
      }
      // A pod bound meanwhile (409) is left as it is.
      if (node)
        await this.#bind(pod.metadata?.name ?? '', node).catch((e: unknown) => {
          if (!isConflict(e)) throw e;
        });
    }
  }

  /** external-attacher's csiAttach (its finalizer and the node-id annotation; ControllerPublish has nothing to do here), then markAsAttached. */
  async #csiAttach(va: Va): Promise<void> {
    const name = va.metadata?.name ?? '';
    const finalizer = attacherFinalizer(va.spec?.attacher ?? '');
    await this.#request(
      'PATCH',
      resourcePath({ ...VAS, name }),
      {
        metadata: {
          finalizers: [...new Set([...(va.metadata?.finalizers ?? []), finalizer])],
          annotations: { 'csi.alpha.kubernetes.io/node-id': va.spec?.nodeName ?? '' },
        },
      },
      MERGE,
    );
    await this.#request(
      'PATCH',
      resourcePath({ ...VAS, name }, 'status'),
      { status: { attached: true } },
      MERGE,
    );
  }

  /** external-attacher's markAsDetached after ControllerUnpublish: its finalizer removed first (the object then goes). */
  async #markAsDetached(va: Va): Promise<void> {
    const finalizer = attacherFinalizer(va.spec?.attacher ?? '');
    const finalizers = va.metadata?.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return;
    const rest = finalizers.filter((f) => f !== finalizer);
    await this.#request(
      'PATCH',
      resourcePath({ ...VAS, name: va.metadata?.name ?? '' }),
      { metadata: { finalizers: rest.length > 0 ? rest : null } },
      MERGE,
    ).catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
  }
}
