/**
 * The tracker's integration lab on a real kube-apiserver: VMs staged as Harvester and KubeVirt
 * write them (src/demo's staged objects, bound PVCs with their PVs, the VMI read back with its
 * uid, a running virt-launcher pod), the test actors (ExpansionActors), and waits on what the
 * tracker writes.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { eventuallyValue } from '../eventually.js';
import { isAlreadyExists, requestJson, resourcePath } from '../../../src/kube/index.js';
import { createLogger, type Logger } from '../../../src/log/index.js';
import {
  startTracker,
  VOLUME_EXPANSIONS,
  type RunningTracker,
  type VolumeExpansion,
} from '../../../src/vmwatcher/index.js';
import { ExpansionActors } from '../../../src/demo/index.js';
import type {
  PersistentVolumeClaim,
  Pod,
  VirtualMachineInstance,
} from '../../../src/model/index.js';
import type { StartTrackerOptions } from '../../../src/vmwatcher/start-tracker.js';
import { KINDS, StagedCluster } from '../../../src/demo/staged-cluster.js';
import { kubeVirt, pvc, storageClass, vm, vmi } from '../../../src/demo/staged-objects.js';

export const KUBEVIRT_NAMESPACE = 'harvester-system';
export const STORAGE_CLASS = 'lab-csi';

/** Quiet unless VOE_TEST_LOGS is set. */
export function labLogger(): Logger {
  return createLogger({
    level: process.env['VOE_TEST_LOGS'] ? 'debug' : 'silent',
    destination: { write: (line: string) => void process.stderr.write(line) },
  });
}

export class TrackerLab {
  readonly cluster: StagedCluster;
  readonly actors: ExpansionActors;

  constructor(readonly kubeConfig: KubeConfig) {
    this.cluster = new StagedCluster(kubeConfig);
    this.actors = new ExpansionActors(kubeConfig);
  }

  /** The StorageClass and the KubeVirt CR (ExpandDisks listed unless `gates` says otherwise). */
  async stageCluster(options: { gates?: string[] } = {}): Promise<void> {
    try {
      await this.cluster.apply({
        storageClasses: [storageClass(STORAGE_CLASS, 'lab.csi.voe.dev')],
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    await this.cluster.apply({
      kubeVirts: [kubeVirt(options.gates ? { gates: options.gates } : {})],
    });
  }

  /**
   * A running VM `vm` in `namespace` with PVC volumes (10Gi each, bound), its VMI (read back)
   * and its virt-launcher pod; hotplugged volumes are in the VMI only and get no launcher mount.
   */
  async stageVm(
    namespace: string,
    name: string,
    volumes: Array<{ claim: string; volumeMode?: 'Block' | 'Filesystem'; hotplug?: boolean }>,
    options: { annotations?: Record<string, string> } = {},
  ): Promise<{ vmi: VirtualMachineInstance; launcher: Pod }> {
    const claims = volumes.map((volume) =>
      pvc(volume.claim, {
        namespace,
        className: STORAGE_CLASS,
        provisioner: 'lab.csi.voe.dev',
        volumeMode: volume.volumeMode ?? 'Block',
        volumeName: `pvc-${namespace}-${volume.claim}`,
      }),
    );
    const specVolumes = volumes.map((volume, index) => ({
      name: index === 0 ? 'disk-0' : volume.claim,
      persistentVolumeClaim: {
        claimName: volume.claim,
        ...(volume.hotplug ? { hotpluggable: true } : {}),
      },
    }));
    const machine = vm(name, {
      namespace,
      volumes: specVolumes.filter((_, index) => !volumes[index]!.hotplug),
      templates: [],
    });
    if (options.annotations)
      machine.metadata!.annotations = { ...machine.metadata!.annotations, ...options.annotations };
    const instance = vmi(name, {
      namespace,
      volumes: specVolumes,
      volumeModes: Object.fromEntries(
        volumes.map((volume) => [volume.claim, volume.volumeMode ?? 'Block']),
      ),
    });
    await this.cluster.apply({ pvcs: claims, vms: [machine], vmis: [instance] });
    await this.cluster.bindClaims(claims);
    const stored = await this.getVmi(namespace, name);
    const launcher = await this.actors.createLauncher(stored, {
      name: `virt-launcher-${name}-x7k2p`,
      volumes: volumes
        .filter((volume) => !volume.hotplug)
        .map((volume, index) => ({
          name: index === 0 ? 'disk-0' : volume.claim,
          claimName: volume.claim,
          volumeMode: volume.volumeMode ?? 'Block',
        })),
    });
    await this.actors.activePods(namespace, name, [launcher]);
    return { vmi: await this.getVmi(namespace, name), launcher };
  }

  async getPvc(namespace: string, name: string): Promise<PersistentVolumeClaim> {
    return requestJson<PersistentVolumeClaim>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({
        group: '',
        version: 'v1',
        plural: 'persistentvolumeclaims',
        namespace,
        name,
      }),
    });
  }

  async getVmi(namespace: string, name: string): Promise<VirtualMachineInstance> {
    const { group, version, plural } = KINDS.vmis;
    return requestJson<VirtualMachineInstance>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({ group, version, plural, namespace, name }),
    });
  }

  async expansion(namespace: string, name: string): Promise<VolumeExpansion> {
    return requestJson<VolumeExpansion>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({ ...VOLUME_EXPANSIONS, namespace, name }),
    });
  }

  async expansions(namespace: string): Promise<VolumeExpansion[]> {
    const list = await requestJson<{ items: VolumeExpansion[] }>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({ ...VOLUME_EXPANSIONS, namespace }),
    });
    return list.items;
  }

  /** Waits until the VolumeExpansion has the phase (and reason, if given). */
  async waitForPhase(
    namespace: string,
    name: string,
    phase: string,
    reason?: string,
    timeoutMs?: number,
  ): Promise<VolumeExpansion> {
    return eventuallyValue(
      () => this.expansion(namespace, name),
      (e) => e.status?.phase === phase && (reason === undefined || e.status.reason === reason),
      `${namespace}/${name} in ${phase}${reason ? `/${reason}` : ''}`,
      timeoutMs,
    );
  }

  /** events.k8s.io/v1 Events of the namespace about one object. */
  async events(
    namespace: string,
    regardingName: string,
  ): Promise<
    Array<{ reason?: string; type?: string; note?: string; regarding?: { kind?: string } }>
  > {
    const list = await requestJson<{ items: Array<Record<string, never>> }>(this.kubeConfig, {
      method: 'GET',
      path: resourcePath({ group: 'events.k8s.io', version: 'v1', plural: 'events', namespace }),
    });
    return list.items.filter(
      (event) => (event['regarding'] as { name?: string } | undefined)?.name === regardingName,
    );
  }

  /** A tracker on this cluster with quick lease timings; stop it yourself. */
  async startTracker(overrides: Partial<StartTrackerOptions> = {}): Promise<RunningTracker> {
    return startTracker({
      kubeConfig: this.kubeConfig,
      logger: labLogger(),
      kubeVirtNamespace: KUBEVIRT_NAMESPACE,
      kubeVirtName: 'kubevirt',
      leaseNamespace: 'default',
      leaseName: 'voe-vmwatcher-test',
      host: '127.0.0.1',
      port: 0,
      leaseDurationMs: 3_000,
      renewDeadlineMs: 2_000,
      retryPeriodMs: 500,
      ...overrides,
    });
  }
}

/** The text of /metrics. */
export async function metricsText(tracker: RunningTracker): Promise<string> {
  const response = await fetch(`${tracker.url}/metrics`);
  return response.text();
}
