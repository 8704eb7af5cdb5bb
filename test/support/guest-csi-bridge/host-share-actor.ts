import type { KubeConfig } from '@kubernetes/client-node';
import {
  Informer,
  isConflict,
  isNotFound,
  parseQuantityCeil,
  requestJson,
  resourcePath,
} from '../../../src/kube/index.js';
import type { HostNetworkFilesystem } from '../../../src/guest-csi-bridge/host/host-objects.js';
import { ReconcileLoop } from './reconcile-loop.js';

const NETWORK_FILESYSTEMS = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  plural: 'networkfilesystems',
  namespace: 'harvester-system',
};
const PVS = { group: '', version: 'v1', plural: 'persistentvolumes' };

interface HostPv {
  metadata?: { name?: string };
  spec?: { capacity?: Record<string, string>; csi?: { volumeAttributes?: Record<string, string> } };
}

/**
 * What serves the NFS share of a Longhorn RWX volume: Longhorn's share manager (its pod exports
 * the volume's filesystem at `/<volume>` over NFSv4; its Service gives the address).
 */
export interface ShareServer {
  /** Starts exporting the volume's filesystem of `bytes` at `/<volume>`; resolves the address clients mount. */
  start(volume: string, bytes: bigint): Promise<string>;
  /** The volume grew to `bytes`: its filesystem is grown (the share manager's volume is expanded online). */
  grow(volume: string, bytes: bigint): Promise<void>;
  /** Stops exporting the volume. */
  stop(volume: string): Promise<void>;
}

export interface HostShareActorOptions {
  kubeConfig: KubeConfig;
  server: ShareServer;
}

/**
 * Plays Harvester's networkfs-manager and Longhorn's share manager for the NetworkFilesystems of
 * harvester-system, writing their status as harvester/networkfs-manager does, in its order:
 * - OnNetworkFSChange (pkg/controller/networkfilesystem/controller.go): a NetworkFilesystem
 *   without status.state gets {state Disabled, status Unknown, type NFS}; desiredState Enabled on
 *   a Disabled one: enableNetworkFS writes {state Enabling, status NotReady} (and attaches the
 *   Longhorn volume, which starts the share manager: here `server.start`), then, the share
 *   manager running, {endpoint: its address, state Enabled, status Ready, type NFS, mountOpts:
 *   the PV's `nfsOptions`} with a Ready condition; desiredState Disabled: disableNetworkFS writes
 *   {state Disabling} (detaching the volume stops the share manager: `server.stop`);
 * - OnShareManagerChange (pkg/controller/sharemanager/controller.go): the share manager stopped
 *   under a Disabling one: {state Disabled, endpoint '', status NotReady, mountOpts ''} with a
 *   NotReady condition.
 * A PV whose capacity grows while its share is exported grows the share (`server.grow`), as
 * Longhorn expands an attached RWX volume's filesystem in its share manager.
 */
export class HostShareActor {
  readonly #options: HostShareActorOptions;
  readonly #shares: Informer;
  readonly #pvs: Informer;
  /** The size each exported volume's share has. */
  readonly #exported = new Map<string, bigint>();
  readonly errors: unknown[] = [];
  readonly #loop = new ReconcileLoop(
    () => this.#reconcileAll(),
    (error) => this.errors.push(error),
  );

  constructor(options: HostShareActorOptions) {
    this.#options = options;
    const { kubeConfig } = options;
    this.#shares = new Informer({ kubeConfig, resource: NETWORK_FILESYSTEMS });
    this.#pvs = new Informer({ kubeConfig, resource: PVS });
    for (const informer of [this.#shares, this.#pvs])
      for (const event of ['add', 'update', 'delete', 'sync'] as const)
        informer.on(event, () => this.#loop.kick());
  }

  async start(): Promise<void> {
    await Promise.all([this.#shares.start(), this.#pvs.start()]);
    this.#loop.kick();
  }

  /** Resolves once the actor has handled everything it has seen so far. */
  async settled(): Promise<void> {
    await this.#loop.settled();
  }

  async stop(): Promise<void> {
    await Promise.all([this.#shares.stop(), this.#pvs.stop()]);
    await this.#loop.stop();
    for (const volume of this.#exported.keys()) await this.#options.server.stop(volume);
    this.#exported.clear();
  }

  /** One pass over everything the actor sees. */
  async #reconcileAll(): Promise<void> {
    for (const share of this.#shares.list() as HostNetworkFilesystem[])
      await this.#reconcile(share);
    await this.#growShares();
  }

  #pv(name: string): HostPv | undefined {
    return this.#pvs.get(undefined, name) as HostPv | undefined;
  }

  static #bytes(pv: HostPv | undefined): bigint {
    const storage = pv?.spec?.capacity?.['storage'];
    return storage ? parseQuantityCeil(storage) : 0n;
  }

  /** UpdateStatus: the whole object with the status changed (a conflict is retried on the next event). */
  async #writeStatus(
    share: HostNetworkFilesystem,
    status: HostNetworkFilesystem['status'],
  ): Promise<void> {
    const name = share.metadata?.name ?? '';
    await requestJson(this.#options.kubeConfig, {
      method: 'PUT',
      path: resourcePath({ ...NETWORK_FILESYSTEMS, name }, 'status'),
      body: { ...share, status: { ...share.status, ...status } },
    }).catch((error: unknown) => {
      // Gone, or changed since the informer saw it: the next event brings the newer object (a
      // wrangler controller requeues a conflict the same way).
      if (!isNotFound(error) && !isConflict(error)) throw error;
    });
  }

  /** networkfs-manager's OnNetworkFSChange, then the share manager controller's OnShareManagerChange. */
  async #reconcile(share: HostNetworkFilesystem): Promise<void> {
    if (share.metadata?.deletionTimestamp) return;
    const name = share.metadata?.name ?? '';
    const desired = share.spec?.desiredState;
    const state = share.status?.state ?? '';
    if (desired === state) return;
    if (state === '') {
      await this.#writeStatus(share, { state: 'Disabled', status: 'Unknown', type: 'NFS' });
      return;
    }
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (desired === 'Enabled') {
      if (state !== 'Enabling') {
        if (state !== 'Disabled') return;
        // updateLHVolumeAttachment(attach): Longhorn attaches the volume and starts its share manager.
        await this.#writeStatus(share, { state: 'Enabling', status: 'NotReady', type: 'NFS' });
        return;
      }
      const pv = this.#pv(name);
      const bytes = HostShareActor.#bytes(pv);
      const endpoint = await this.#options.server.start(name, bytes);
      this.#exported.set(name, bytes);
      await this.#writeStatus(share, {
        endpoint,
        state: 'Enabled',
        type: 'NFS',
        status: 'Ready',
        mountOpts: pv?.spec?.csi?.volumeAttributes?.['nfsOptions'] ?? '',
        ...conditions('Ready', 'True', 'Endpoint is ready', now),
      });
      return;
    }
    if (desired === 'Disabled') {
      if (state !== 'Disabling') {
        // updateLHVolumeAttachment(detach): Longhorn stops the share manager.
        await this.#writeStatus(share, { state: 'Disabling' });
        return;
      }
      await this.#options.server.stop(name);
      this.#exported.delete(name);
      await this.#writeStatus(share, {
        state: 'Disabled',
        endpoint: '',
        status: 'NotReady',
        type: 'NFS',
        mountOpts: '',
        ...conditions('NotReady', 'True', 'Endpoint is not ready', now),
      });
    }
  }

  /** Longhorn's online expansion of an exported RWX volume: its share grows with its PV. */
  async #growShares(): Promise<void> {
    for (const [volume, size] of this.#exported) {
      const bytes = HostShareActor.#bytes(this.#pv(volume));
      if (bytes <= size) continue;
      await this.#options.server.grow(volume, bytes);
      this.#exported.set(volume, bytes);
    }
  }
}

function conditions(
  type: string,
  status: string,
  reason: string,
  lastTransitionTime: string,
): { conditions: Array<Record<string, string>> } {
  return { conditions: [{ type, status, reason, lastTransitionTime }] };
}
