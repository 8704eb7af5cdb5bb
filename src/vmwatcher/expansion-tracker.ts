import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClientConfig } from '../kube/index.js';
import {
  exponentialDelay,
  getObject,
  isAlreadyExists,
  isConflict,
  isNotFound,
  keyOf,
  ok,
  parseQuantityCeil,
  realClock,
  requestJson,
  resourcePath,
  retryAfter,
  runWorkers,
  splitKey,
  WorkQueue,
  type Clock,
  type EventRecorder,
  type ObjectRef,
  type WorkResult,
} from '../kube/index.js';
import type { Logger } from '../log/index.js';
import {
  isVmiRunning,
  isVmRunning,
  pvcKeysOfVm,
  pvcKeysOfVmi,
  vmNameOfVmi,
  VOLUME_CLAIM_TEMPLATES_ANNOTATION,
  type ClaimEvent,
  type LonghornVolume,
  type PersistentVolume,
  type Pod,
  type PersistentVolumeClaim,
  type VirtualMachineInstance,
  type VirtualMachine,
} from '../model/index.js';
import { LONGHORN_DRIVER } from '../settings/index.js';
import { deriveStage, type Stage, type StageInput } from './derive-stage.js';
import { EventAction, EventReason, phaseEventReason } from './event-reasons.js';
import { FINAL_PHASES, OUTCOME_PHASES, Phase } from './expansion-phase.js';
import { expansionName } from './expansion-name.js';
import type { GuestProbe, ProbeReading, ProbeTarget } from './guest-probe.js';
import type { GuestFilesystemGrower, GuestGrowthTarget } from './guest-filesystem-grower.js';
import { guestProbeNamespaceListed } from './guest-probe-namespaces.js';
import { growthHeldBy } from './stage/guest-growth-verdict.js';
import { TrackerGuestGrowth } from './tracker-guest-growth.js';
import { guestGrowthNote } from './guest-growth-note.js';
import { launcherUser } from './probe/launcher-libvirt-uri.js';
import { guestProbeOptedOut } from './guest-probe-opt-out.js';
import { nextStatus } from './next-status.js';
import { StageReason } from './stage-reason.js';
import {
  EVENTS_BY_PVC,
  LONGHORN_NAMESPACE,
  EXPANSIONS_BY_PVC,
  PODS_BY_CREATOR,
  PODS_BY_OWNER,
  PODS_BY_UID,
  VMIS_BY_PVC,
  VMIS_BY_UID,
  VMS_BY_PVC,
  type TrackerCaches,
} from './tracker-caches.js';
import type { TrackerMetrics } from './tracker-metrics.js';
import { describeClaimTemplates } from './describe-claim-templates.js';
import {
  PVC_LABEL,
  VOLUME_EXPANSION_API_VERSION,
  VOLUME_EXPANSION_KIND,
  VOLUME_EXPANSIONS,
  type VolumeExpansion,
} from './volume-expansion.js';
import { CREATED_BY_LABEL, HOTPLUG_POD, KUBEVIRT_POD_LABEL } from '../model/index.js';

export interface ExpansionTrackerOptions {
  kubeConfig: KubeClientConfig;
  caches: TrackerCaches;
  metrics: TrackerMetrics;
  /** Where phase Events go; none: no Events. */
  recorder?: EventRecorder;
  logger?: Logger;
  clock?: Clock;
  /** How long a phase may go without progress (--stuck-after). */
  stuckAfterMs: number;
  /** The guest probe port; none configured: expansions wait at HypervisorResizing with NoGuestProbe. */
  probe?: GuestProbe;
  /** The namespaces the probe may probe (--guest-probe-namespaces); undefined: every one. A VM elsewhere is GuestUnverifiable. */
  guestProbeNamespaces?: readonly string[];
  /** The longest pause before a probed expansion (HypervisorResizing, GuestVerifying) reads the probe again (from 250 ms after a change, doubling); default 30 s. */
  probeIntervalMs?: number;
  /** Workers processing keys in parallel (one key at a time each); default 4 (voe watch: 16). */
  workers?: number;
  /**
   * Grows (opted-in VMs) or plans (the others: the commands in the Completed message) the
   * guest's partition, LVM and filesystem once the guest sees the grown disk; needs `probe`.
   */
  grower?: GuestFilesystemGrower;
  /** The cluster-wide switch of guest filesystem growth (--guest-filesystem-growth); off: VMs are only planned for. */
  guestFilesystemGrowth?: boolean;
}

/** The first re-read of a probe after a change; doubling up to probeIntervalMs. */
const PROBE_FIRST_RECHECK_MS = 250;

/** Queue keys: a PVC to follow, or a VM whose volumeClaimTemplates annotation to check. */
const PVC = 'pvc:';
const VM = 'vm:';

/** What following one VolumeExpansion asks of its PVC's key. */
interface Followed {
  conflict?: boolean;
  recheckAfterMs?: number;
}

const ref = (
  apiVersion: string,
  kind: string,
  object: { metadata?: { name?: string; namespace?: string; uid?: string } },
): ObjectRef => ({
  apiVersion,
  kind,
  name: object.metadata?.name ?? '',
  ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
  ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
});

function sameSize(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  try {
    return parseQuantityCeil(a.trim()) === parseQuantityCeil(b.trim());
  } catch {
    return false;
  }
}

function bytesOf(record: Record<string, unknown> | undefined): bigint | undefined {
  const raw = record?.['storage'];
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  try {
    return parseQuantityCeil(String(raw).trim());
  } catch {
    return undefined;
  }
}

/**
 * The controller of VolumeExpansions (docs/tracker.md): informer events queue the key of the PVC
 * they concern; a worker creates the VolumeExpansion of the PVC's requested size when the PVC is
 * used by a VM and not yet grown to it (one per size, named after it, owned by the PVC), derives
 * the phase of every VolumeExpansion of the PVC from the caches (deriveStage), and writes the
 * status through the status subresource when it changed (an Event on the PVC and the VM, metrics
 * and a log line at each phase change). Only `lead()` processes keys: the caches follow the
 * cluster on every replica, the leader alone writes.
 */
export class ExpansionTracker {
  readonly #o: ExpansionTrackerOptions;
  readonly #clock: Clock;
  readonly #unsubscribe: Array<() => void> = [];
  /** Objects this tracker wrote, until the cache has them: uid -> the version written over and the answer. */
  readonly #written = new Map<string, { over: string[]; object: VolumeExpansion }>();
  /** Invalid annotations already reported: VM uid -> annotation text. */
  readonly #reported = new Map<string, string>();
  /** Malformed input already logged: VolumeExpansion uid -> the problems. */
  readonly #problems = new Map<string, string>();
  /** Probed expansions: uid -> what the probe last showed and how many reads in a row showed it. */
  readonly #probed = new Map<string, { seen: string; attempts: number }>();
  #queue: WorkQueue<string> | undefined;
  /** Keys an informer change queued, until a worker takes them: key -> when first queued (voe_tracker_queue_wait_seconds). */
  readonly #queuedAt = new Map<string, number>();
  /** Aborted when this replica stops leading (a guest growth under way stops after its command). */
  #leadSignal: AbortSignal | undefined;
  /** The guest filesystem growth, with a grower and a probe configured. */
  readonly #growth: TrackerGuestGrowth | undefined;

  constructor(options: ExpansionTrackerOptions) {
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    const { caches } = options;
    this.#growth =
      options.grower && options.probe
        ? new TrackerGuestGrowth({
            grower: options.grower,
            enabled: options.guestFilesystemGrowth === true,
            namespace: (name) => caches.namespaces?.get(undefined, name),
            ...(options.logger ? { logger: options.logger } : {}),
          })
        : undefined;
    const pvcKey = (namespace: string | undefined, name: string | undefined): void => {
      if (namespace && name) this.#add(PVC + keyOf(namespace, name));
    };
    const onChange = <T extends KubernetesObject>(
      informer: { on: TrackerCaches['pvcs']['on'] },
      keys: (object: T) => void,
    ): void => {
      const on = informer.on.bind(informer) as unknown as (
        event: 'add' | 'update' | 'delete',
        fn: (object: T, old?: T) => void,
      ) => () => void;
      this.#unsubscribe.push(
        on('add', (object) => keys(object)),
        on('update', (object, old) => {
          keys(object);
          if (old) keys(old);
        }),
        on('delete', (object) => keys(object)),
      );
    };
    onChange<PersistentVolumeClaim & KubernetesObject>(caches.pvcs, (pvc) =>
      pvcKey(pvc.metadata?.namespace, pvc.metadata?.name),
    );
    onChange<KubernetesObject & { spec?: { claimRef?: { namespace?: string; name?: string } } }>(
      caches.pvs as never,
      (pv) => pvcKey(pv.spec?.claimRef?.namespace, pv.spec?.claimRef?.name),
    );
    onChange<VirtualMachine & KubernetesObject>(caches.vms as never, (vm) => {
      for (const key of pvcKeysOfVm(vm)) this.#add(PVC + key);
      this.#add(VM + keyOf(vm.metadata?.namespace, vm.metadata?.name ?? ''));
    });
    onChange<VirtualMachineInstance & KubernetesObject>(caches.vmis as never, (vmi) => {
      for (const key of pvcKeysOfVmi(vmi)) this.#add(PVC + key);
    });
    onChange<Pod & KubernetesObject>(caches.pods as never, (pod) => this.#podChanged(pod));
    onChange<KubernetesObject>(caches.kubeVirts as never, () => this.#addAllExpansions());
    onChange<VolumeExpansion & KubernetesObject>(caches.expansions as never, (expansion) =>
      pvcKey(expansion.metadata?.namespace, expansion.spec?.pvcName),
    );
    onChange<ClaimEvent & KubernetesObject>(caches.claimEvents as never, (event) =>
      pvcKey(event.involvedObject?.namespace, event.involvedObject?.name),
    );
    if (caches.namespaces)
      onChange<KubernetesObject>(caches.namespaces as never, (namespace) =>
        this.#addExpansionsOf(namespace.metadata?.name),
      );
    onChange<LonghornVolume & KubernetesObject>(caches.longhornVolumes as never, (volume) => {
      const served = volume.status?.kubernetesStatus;
      if (served?.pvcName) pvcKey(served.namespace, served.pvcName);
      else this.#addAllExpansions();
    });
  }

  /** True while lead() runs. */
  get leading(): boolean {
    return this.#queue !== undefined;
  }

  /**
   * Processes keys until `signal` aborts: every PVC a VM or VolumeExpansion names and every VM
   * with a volumeClaimTemplates annotation first, then what the informers report. The caches must
   * have synced. Resolves once the workers stopped (a key in hand is finished first).
   */
  async lead(signal: AbortSignal): Promise<void> {
    if (this.#queue || signal.aborted) return;
    const queue = new WorkQueue<string>({ clock: this.#clock });
    this.#queue = queue;
    this.#leadSignal = signal;
    const { caches } = this.#o;
    for (const vm of caches.vms.list()) {
      for (const key of pvcKeysOfVm(vm)) queue.add(PVC + key);
      if (vm.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION] !== undefined)
        queue.add(VM + keyOf(vm.metadata.namespace, vm.metadata.name ?? ''));
    }
    for (const vmi of caches.vmis.list()) for (const key of pvcKeysOfVmi(vmi)) queue.add(PVC + key);
    this.#addAllExpansions();
    const workers = runWorkers(queue, this.#o.workers ?? 4, (key) => this.#process(key), {
      ...(this.#o.logger ? { logger: this.#o.logger } : {}),
    });
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.#queue = undefined;
    await queue.shutDown({ drain: false });
    await workers;
    this.#queuedAt.clear();
  }

  /** Stops listening to the caches. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #add(key: string): void {
    if (!this.#queue) return;
    if (!this.#queuedAt.has(key)) this.#queuedAt.set(key, this.#clock.now());
    this.#queue.add(key);
  }

  #addAllExpansions(): void {
    for (const expansion of this.#o.caches.expansions.list()) {
      if (expansion.spec?.pvcName)
        this.#add(PVC + keyOf(expansion.metadata?.namespace, expansion.spec.pvcName));
    }
  }

  /** The PVCs of the namespace's VolumeExpansions (its guest-growth annotation changed). */
  #addExpansionsOf(namespace: string | undefined): void {
    // Not leading (the caches' first list among them): nothing to queue.
    if (!this.#queue) return;
    for (const expansion of this.#o.caches.expansions.list()) {
      if (expansion.metadata?.namespace === namespace && expansion.spec?.pvcName)
        this.#add(PVC + keyOf(namespace, expansion.spec.pvcName));
    }
  }

  /** A launcher's VMI, or a hotplug pod's launcher's VMI: its PVCs. */
  #podChanged(pod: Pod): void {
    const { caches } = this.#o;
    const namespace = pod.metadata?.namespace;
    let launcher: Pod | undefined = pod;
    if (pod.metadata?.labels?.[KUBEVIRT_POD_LABEL] === HOTPLUG_POD) {
      const owner = pod.metadata.ownerReferences?.find((o) => o.kind === 'Pod')?.uid;
      launcher = owner ? caches.pods.byIndex(PODS_BY_UID, owner)[0] : undefined;
    }
    const creator = launcher?.metadata?.labels?.[CREATED_BY_LABEL];
    if (!creator) return;
    for (const vmi of caches.vmis.byIndex(VMIS_BY_UID, keyOf(namespace, creator)))
      for (const key of pvcKeysOfVmi(vmi)) this.#add(PVC + key);
  }

  async #process(key: string): Promise<WorkResult> {
    const queuedAt = this.#queuedAt.get(key);
    if (queuedAt !== undefined) {
      this.#queuedAt.delete(key);
      this.#o.metrics.queueWait.observe(Math.max(0, this.#clock.now() - queuedAt) / 1000);
    }
    if (key.startsWith(VM)) {
      this.#checkVm(key.slice(VM.length));
      return ok();
    }
    return this.#reconcile(key.slice(PVC.length));
  }

  /** The VM (and its VMI) using the PVC: the one with a running VMI first, else a running VM. */
  #usersOf(key: string): {
    vm: VirtualMachine | undefined;
    vmi: VirtualMachineInstance | undefined;
  } {
    const { caches } = this.#o;
    const { namespace } = splitKey(key);
    const vmis = caches.vmis.byIndex(VMIS_BY_PVC, key);
    const vms = caches.vms.byIndex(VMS_BY_PVC, key);
    const vmi = vmis.find((candidate) => isVmiRunning(candidate)) ?? vmis[0];
    let vm: VirtualMachine | undefined;
    if (vmi) {
      const owner = vmNameOfVmi(vmi) ?? vmi.metadata?.name ?? '';
      vm =
        vms.find((candidate) => candidate.metadata?.name === owner) ??
        caches.vms.get(namespace, owner);
    }
    vm ??= vms.find((candidate) => isVmRunning(candidate)) ?? vms[0];
    return { vm, vmi };
  }

  /** The size a new VolumeExpansion should follow: the request, when the PVC or its running VMI has less. */
  #wanted(
    pvc: PersistentVolumeClaim,
    vmi: VirtualMachineInstance | undefined,
  ): { to: string; from: string } | undefined {
    const requested = pvc.spec?.resources?.requests?.['storage'];
    const request = bytesOf(pvc.spec?.resources?.requests);
    if (request === undefined || typeof requested !== 'string') return undefined;
    const capacity = bytesOf(pvc.status?.capacity);
    const capacityText = String(pvc.status?.capacity?.['storage'] ?? '');
    // An unbound PVC (no capacity yet) is being provisioned, not expanded.
    if (capacity === undefined || pvc.status?.phase !== 'Bound') return undefined;
    if (request > capacity) return { to: requested, from: capacityText };
    if (!vmi || !isVmiRunning(vmi)) return undefined;
    const name = pvc.metadata?.name;
    const info = vmi.status?.volumeStatus?.find(
      (entry) => entry.persistentVolumeClaimInfo?.claimName === name,
    )?.persistentVolumeClaimInfo;
    const vmiCapacity = bytesOf(info?.capacity);
    if (vmiCapacity !== undefined && vmiCapacity < request)
      return { to: requested, from: String(info?.capacity?.['storage']) };
    return undefined;
  }

  /** The cached object, or what this tracker wrote when the cache does not have it yet. */
  #latest(expansion: VolumeExpansion): VolumeExpansion {
    const uid = expansion.metadata?.uid ?? '';
    const written = this.#written.get(uid);
    if (!written) return expansion;
    if (written.over.includes(expansion.metadata?.resourceVersion ?? '')) return written.object;
    this.#written.delete(uid);
    return expansion;
  }

  async #reconcile(key: string): Promise<WorkResult> {
    const { caches } = this.#o;
    const { namespace, name } = splitKey(key);
    const pvc = caches.pvcs.get(namespace, name);
    // A deleted PVC's VolumeExpansions go with it (ownerReference).
    if (!pvc) return ok();
    const expansions = caches.expansions
      .byIndex(EXPANSIONS_BY_PVC, key)
      .map((expansion) => this.#latest(expansion));
    const { vm, vmi } = this.#usersOf(key);
    if (!vm && !vmi && expansions.length === 0) return ok();
    if (vm || vmi) {
      const wanted = this.#wanted(pvc, vmi);
      if (wanted && !expansions.some((expansion) => sameSize(expansion.spec?.to, wanted.to))) {
        const created = await this.#create(pvc, vm ?? vmi, wanted);
        if (created && !expansions.some((e) => e.metadata?.uid === created.metadata?.uid))
          expansions.push(created);
      }
    }
    let conflict = false;
    let recheck: number | undefined;
    for (const expansion of expansions) {
      const followed = await this.#follow(expansion, pvc, vm, vmi);
      conflict ||= followed.conflict === true;
      if (followed.recheckAfterMs !== undefined)
        recheck = Math.min(recheck ?? Infinity, followed.recheckAfterMs);
    }
    // The cache catches up with the other writer meanwhile.
    if (conflict) return retryAfter(250);
    return recheck === undefined ? ok() : retryAfter(recheck + 50);
  }

  async #create(
    pvc: PersistentVolumeClaim,
    user: VirtualMachine | VirtualMachineInstance | undefined,
    wanted: { to: string; from: string },
  ): Promise<VolumeExpansion | undefined> {
    const namespace = pvc.metadata?.namespace ?? '';
    const pvcName = pvc.metadata?.name ?? '';
    const name = expansionName(pvcName, parseQuantityCeil(wanted.to.trim()));
    const collection = resourcePath({ ...VOLUME_EXPANSIONS, namespace });
    const body: VolumeExpansion = {
      apiVersion: VOLUME_EXPANSION_API_VERSION,
      kind: VOLUME_EXPANSION_KIND,
      metadata: {
        name,
        namespace,
        ...(pvcName.length <= 63 ? { labels: { [PVC_LABEL]: pvcName } } : {}),
        ...(pvc.metadata?.uid
          ? {
              ownerReferences: [
                {
                  apiVersion: 'v1',
                  kind: 'PersistentVolumeClaim',
                  name: pvcName,
                  uid: pvc.metadata.uid,
                  controller: true,
                },
              ],
            }
          : {}),
      },
      spec: {
        pvcName,
        ...(user?.metadata?.name ? { vmName: user.metadata.name } : {}),
        from: wanted.from,
        to: wanted.to,
      },
    };
    if (!this.leading) return undefined;
    try {
      const created = await requestJson<VolumeExpansion>(this.#o.kubeConfig, {
        method: 'POST',
        path: collection,
        body,
      });
      this.#o.logger?.info(
        { pvc: `${namespace}/${pvcName}`, expansion: name, from: wanted.from, to: wanted.to },
        'following a new expansion',
      );
      return created;
    } catch (error) {
      // Another leader's (or this one's, before a restart) object: follow it.
      if (!isAlreadyExists(error)) throw error;
      return getObject<VolumeExpansion>(this.#o.kubeConfig, {
        ...VOLUME_EXPANSIONS,
        namespace,
        name,
      });
    }
  }

  /** The Longhorn volume of a Longhorn PV (named by its spec.csi.volumeHandle), if cached. */
  #longhornVolumeOf(pv: PersistentVolume | undefined): LonghornVolume | undefined {
    const csi = pv?.spec?.csi;
    if (csi?.driver !== LONGHORN_DRIVER || !csi.volumeHandle) return undefined;
    return this.#o.caches.longhornVolumes.get(LONGHORN_NAMESPACE, csi.volumeHandle);
  }

  #podsOf(vmi: VirtualMachineInstance | undefined): Pod[] {
    if (!vmi?.metadata?.uid) return [];
    const { pods } = this.#o.caches;
    const namespace = vmi.metadata.namespace;
    const launchers = pods.byIndex(PODS_BY_CREATOR, keyOf(namespace, vmi.metadata.uid));
    const hotplugs = launchers.flatMap((launcher) =>
      launcher.metadata?.uid
        ? pods.byIndex(PODS_BY_OWNER, keyOf(namespace, launcher.metadata.uid))
        : [],
    );
    return [...launchers, ...hotplugs];
  }

  /** The probe's target for the PVC's volume of the VMI: its volume, disk target and launcher. */
  #probeTarget(
    input: StageInput,
    vmi: VirtualMachineInstance,
    launcher: string | undefined,
  ): ProbeTarget {
    const claimName = input.pvc.metadata?.name ?? '';
    const volume = (vmi.spec?.volumes ?? []).find(
      (v) => (v.persistentVolumeClaim?.claimName ?? v.dataVolume?.name) === claimName,
    );
    const status = vmi.status?.volumeStatus?.find(
      (entry) =>
        entry.persistentVolumeClaimInfo?.claimName === claimName || entry.name === volume?.name,
    );
    return {
      vmi,
      volumeName: volume?.name ?? claimName,
      target: status?.target,
      claimName,
      launcherPod: launcher,
      launcherUser: launcherUser(
        input.pods.find((pod) => launcher !== undefined && pod.metadata?.name === launcher),
      ),
    };
  }

  async #probe(target: ProbeTarget): Promise<ProbeReading> {
    try {
      return await this.#o.probe!.read(target);
    } catch (error) {
      this.#o.logger?.warn(
        { err: error, pvc: target.claimName },
        'guest probe failed; sizes unknown',
      );
      return { failure: (error as Error).message };
    }
  }

  /**
   * When a probed expansion reads the probe again: soon after its last change (virt-handler and
   * the guest act within seconds), then less often, up to probeIntervalMs.
   */
  #probeRecheck(expansion: VolumeExpansion, stage: Stage): number {
    const uid = expansion.metadata?.uid ?? '';
    const seen = `${stage.phase}/${stage.reason}/${stage.sizes.hypervisor}/${stage.sizes.guest}`;
    const last = this.#probed.get(uid);
    const attempts = last?.seen === seen ? last.attempts + 1 : 1;
    this.#probed.set(uid, { seen, attempts });
    return exponentialDelay(attempts, {
      baseMs: PROBE_FIRST_RECHECK_MS,
      maxMs: this.#o.probeIntervalMs ?? 30_000,
    });
  }

  async #follow(
    cached: VolumeExpansion,
    pvc: PersistentVolumeClaim,
    vm: VirtualMachine | undefined,
    vmi: VirtualMachineInstance | undefined,
  ): Promise<Followed> {
    const { caches } = this.#o;
    const previous = cached.status;
    if (previous?.phase !== undefined && FINAL_PHASES.has(previous.phase)) return {};
    const now = this.#clock.now();
    const pv = pvc.spec?.volumeName ? caches.pvs.get(undefined, pvc.spec.volumeName) : undefined;
    const input: StageInput = {
      expansion: cached,
      pvc,
      pv,
      vm,
      vmi,
      pods: this.#podsOf(vmi),
      kubeVirt: caches.kubeVirts.list()[0],
      guestProbeNamespaces: this.#o.probe ? this.#o.guestProbeNamespaces : undefined,
      longhornVolume: this.#longhornVolumeOf(pv),
      claimEvents: caches.claimEvents.byIndex(
        EVENTS_BY_PVC,
        keyOf(pvc.metadata?.namespace, pvc.metadata?.name ?? ''),
      ),
      probe: null,
      now,
      stuckAfterMs: this.#o.stuckAfterMs,
    };
    let stage: Stage = deriveStage(input);
    let probed = false;
    let target: ProbeTarget | undefined;
    let reading: ProbeReading | undefined;
    if (
      stage.reason === StageReason.NoGuestProbe &&
      this.#o.probe &&
      vmi &&
      !guestProbeOptedOut(input.vm)
    ) {
      target = this.#probeTarget(input, vmi, stage.pods.launcher);
      reading = await this.#probe(target);
      stage = deriveStage({ ...input, probe: reading });
      probed = stage.phase !== Phase.Completed;
    }
    let current = cached;
    let at = now;
    if (
      target &&
      reading?.guestDevice &&
      reading.guestEvidence !== 'Filesystem' &&
      this.#growth &&
      stage.reason === StageReason.GuestSeesNewSize
    ) {
      const grown = await this.#guestGrowth(
        { ...input, probe: reading },
        { ...target, guestDevice: reading.guestDevice },
        pvc,
      );
      if (grown.conflict) return { conflict: true };
      ({ stage, expansion: current, at } = grown);
      probed ||= stage.phase !== Phase.Completed;
    }
    if (!probed) this.#probed.delete(cached.metadata?.uid ?? '');
    this.#logProblems(cached, stage);
    // Nothing tells of a hypervisor's or guest's size: a probed expansion reads it again later.
    const recheck = Math.min(
      stage.recheckAfterMs ?? Infinity,
      probed ? this.#probeRecheck(cached, stage) : Infinity,
    );
    const result: Followed = recheck === Infinity ? {} : { recheckAfterMs: recheck };
    const outcome = await this.#write(current, pvc, vm, stage, at);
    return outcome.conflict ? { conflict: true } : outcome.skipped ? {} : result;
  }

  /**
   * The guest sees the grown disk and a grower is configured (docs/guest-growth.md "In the
   * tracker"). Not opted in: the plan, for the commands in the Completed message. Opted in:
   * GuestFilesystemGrowing is written first (its Event), unless the VMI migrates or is paused
   * (then it waits there); then the growth runs, one per VM, and its outcome is derived.
   */
  async #guestGrowth(
    input: StageInput,
    target: GuestGrowthTarget,
    pvc: PersistentVolumeClaim,
  ): Promise<
    | { stage: Stage; expansion: VolumeExpansion; at: number; conflict?: undefined }
    | { conflict: true }
  > {
    const growth = this.#growth!;
    const namespace = pvc.metadata?.namespace ?? '';
    const optIn = growth.optIn(input.vm, namespace, this.#probesNamespace(namespace));
    const unchanged = { expansion: input.expansion, at: input.now };
    if (!optIn.grow) {
      const plan = await growth.plan(target, this.#leadSignal);
      return { stage: deriveStage({ ...input, guestGrowth: { optIn, plan } }), ...unchanged };
    }
    const growing = deriveStage({ ...input, guestGrowth: { optIn, outcome: undefined } });
    if (growthHeldBy(input.vmi) !== undefined) return { stage: growing, ...unchanged };
    const before = await this.#write(input.expansion, pvc, input.vm, growing, input.now);
    if (before.conflict) return { conflict: true };
    if (before.skipped) return { stage: growing, ...unchanged };
    const outcome = await growth.grow(target, this.#leadSignal);
    const at = this.#clock.now();
    const expansion = before.expansion;
    const stage = deriveStage({ ...input, expansion, now: at, guestGrowth: { optIn, outcome } });
    return { stage, expansion, at };
  }

  /** Whether the probe may probe a VM of `namespace` (--guest-probe-namespaces). */
  #probesNamespace(namespace: string): boolean {
    return guestProbeNamespaceListed(namespace, this.#o.guestProbeNamespaces);
  }

  /**
   * Writes the status `stage` gives, when it differs from the object's: through the status
   * subresource, then the Events, metrics and log line of a transition. skipped: nothing to
   * write, not leading, or the object is gone.
   */
  async #write(
    cached: VolumeExpansion,
    pvc: PersistentVolumeClaim,
    vm: VirtualMachine | undefined,
    stage: Stage,
    now: number,
  ): Promise<{ expansion: VolumeExpansion; conflict?: boolean; skipped?: boolean }> {
    const previous = cached.status;
    const status = nextStatus(previous, stage, now);
    if (isDeepStrictEqual(status, previous)) return { expansion: cached, skipped: false };
    if (!this.leading) return { expansion: cached, skipped: true };
    const namespace = cached.metadata?.namespace ?? '';
    const name = cached.metadata?.name ?? '';
    let written: VolumeExpansion;
    const sent = this.#clock.now();
    try {
      written = await requestJson<VolumeExpansion>(this.#o.kubeConfig, {
        method: 'PUT',
        path: resourcePath({ ...VOLUME_EXPANSIONS, namespace, name }, 'status'),
        body: { ...cached, status },
      });
    } catch (error) {
      this.#o.metrics.statusWriteDuration.observe(Math.max(0, this.#clock.now() - sent) / 1000);
      if (isConflict(error)) {
        this.#o.metrics.statusWrites.inc({ result: 'conflict' });
        return { expansion: cached, conflict: true };
      }
      if (isNotFound(error)) return { expansion: cached, skipped: true };
      this.#o.metrics.statusWrites.inc({ result: 'failed' });
      throw error;
    }
    this.#o.metrics.statusWriteDuration.observe(Math.max(0, this.#clock.now() - sent) / 1000);
    this.#o.metrics.statusWrites.inc({ result: 'written' });
    if (cached.metadata?.uid)
      this.#written.set(cached.metadata.uid, {
        over: [...this.#writtenOver(cached), cached.metadata.resourceVersion ?? ''],
        object: written,
      });
    this.#transitioned(written, pvc, vm, previous, now);
    return { expansion: written };
  }

  /**
   * The versions an earlier write of this processing went over, when `cached` is what that write
   * answered (GuestFilesystemGrowing then Completed): a cache still at any of them is stale.
   */
  #writtenOver(cached: VolumeExpansion): string[] {
    const before = this.#written.get(cached.metadata?.uid ?? '');
    return before && before.object.metadata?.resourceVersion === cached.metadata?.resourceVersion
      ? before.over
      : [];
  }

  #logProblems(expansion: VolumeExpansion, stage: Stage): void {
    const uid = expansion.metadata?.uid ?? '';
    const text = stage.problems.join('; ');
    if (text === '') {
      this.#problems.delete(uid);
      return;
    }
    if (this.#problems.get(uid) === text) return;
    this.#problems.set(uid, text);
    this.#o.logger?.warn(
      {
        expansion: `${expansion.metadata?.namespace}/${expansion.metadata?.name}`,
        problems: stage.problems,
        reason: stage.reason,
      },
      'malformed input; marked on the VolumeExpansion',
    );
  }

  /** Events, metrics and a log line when the phase (or, while Stuck or Infeasible, the reason) changed. */
  #transitioned(
    expansion: VolumeExpansion,
    pvc: PersistentVolumeClaim,
    vm: VirtualMachine | undefined,
    previous: VolumeExpansion['status'],
    now: number,
  ): void {
    const status = expansion.status ?? {};
    const phase = status.phase;
    if (!phase) return;
    const phaseChanged = previous?.phase !== phase;
    const alarming = phase === Phase.Stuck || phase === Phase.Infeasible;
    if (!phaseChanged && !(alarming && previous?.reason !== status.reason)) return;
    const { metrics } = this.#o;
    if (phaseChanged && previous?.phase) {
      const since = Date.parse(previous.lastTransitionTime ?? '');
      if (!Number.isNaN(since))
        metrics.phaseDuration.observe({ phase: previous.phase }, Math.max(0, (now - since) / 1000));
    }
    if (phaseChanged && OUTCOME_PHASES.has(phase)) {
      metrics.outcomes.inc({ outcome: phase });
      const created = Date.parse(expansion.metadata?.creationTimestamp ?? '');
      if (!Number.isNaN(created))
        metrics.endToEnd.observe({ outcome: phase }, Math.max(0, (now - created) / 1000));
    }
    const claim = `${pvc.metadata?.namespace}/${pvc.metadata?.name}`;
    this.#o.logger?.info(
      {
        pvc: claim,
        expansion: expansion.metadata?.name,
        to: expansion.spec?.to,
        from: previous?.phase,
        phase,
        reason: status.reason,
        waitingFor: status.waitingFor,
      },
      `expansion ${phase}: ${status.message ?? ''}`,
    );
    const recorder = this.#o.recorder;
    if (!recorder) return;
    const type = alarming ? 'Warning' : 'Normal';
    const note = `${expansion.spec?.from ?? '?'} -> ${expansion.spec?.to ?? '?'}: ${status.message ?? ''}`;
    const pvcRef = ref('v1', 'PersistentVolumeClaim', pvc);
    recorder.record({
      regarding: pvcRef,
      related: ref(VOLUME_EXPANSION_API_VERSION, VOLUME_EXPANSION_KIND, expansion),
      type,
      reason: phaseEventReason(phase),
      action: EventAction.TrackExpansion,
      note,
    });
    if (vm?.metadata?.name) {
      recorder.record({
        regarding: ref('kubevirt.io/v1', 'VirtualMachine', vm),
        related: pvcRef,
        type,
        reason: phaseEventReason(phase),
        action: EventAction.TrackExpansion,
        note: `${claim} ${note}`,
      });
    }
    this.#recordGuestGrowth(expansion, vm, claim, phaseChanged);
  }

  /** The Event on the VM once the tracker grew, or tried to grow, its guest's filesystem. */
  #recordGuestGrowth(
    expansion: VolumeExpansion,
    vm: VirtualMachine | undefined,
    claim: string,
    phaseChanged: boolean,
  ): void {
    const status = expansion.status ?? {};
    const grown = status.reason === StageReason.GuestFilesystemGrown;
    const notGrown = status.reason === StageReason.GuestFilesystemNotGrown;
    if (!phaseChanged || !vm?.metadata?.name || !status.guestFilesystem || !(grown || notGrown))
      return;
    this.#o.recorder?.record({
      regarding: ref('kubevirt.io/v1', 'VirtualMachine', vm),
      related: ref(VOLUME_EXPANSION_API_VERSION, VOLUME_EXPANSION_KIND, expansion),
      type: grown ? 'Normal' : 'Warning',
      reason: grown ? EventReason.GuestFilesystemGrown : EventReason.GuestFilesystemNotGrown,
      action: EventAction.GrowGuestFilesystem,
      note: guestGrowthNote(claim, status.guestFilesystem, status.message ?? ''),
    });
  }

  /** A VM's volumeClaimTemplates annotation that cannot be read: logged and an Event on the VM, once per text. */
  #checkVm(key: string): void {
    const { namespace, name } = splitKey(key);
    const vm = this.#o.caches.vms.get(namespace, name);
    const uid = vm?.metadata?.uid ?? '';
    const text = vm?.metadata?.annotations?.[VOLUME_CLAIM_TEMPLATES_ANNOTATION];
    const why = text === undefined ? undefined : describeClaimTemplates(text);
    if (!vm || why === undefined) {
      this.#reported.delete(uid);
      return;
    }
    if (this.#reported.get(uid) === text) return;
    this.#reported.set(uid, text!);
    const message =
      `The ${VOLUME_CLAIM_TEMPLATES_ANNOTATION} annotation of VM ${key} cannot be read: ${why}. ` +
      'The tracker follows only the PVCs its volumes name; Harvester writes this annotation: correct it or remove it.';
    this.#o.logger?.warn({ vm: key, why }, message);
    this.#o.recorder?.record({
      regarding: ref('kubevirt.io/v1', 'VirtualMachine', vm),
      type: 'Warning',
      reason: EventReason.InvalidVolumeClaimTemplates,
      action: EventAction.ReadVolumeClaimTemplates,
      note: message,
    });
  }
}
