import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log/index.js';
import {
  startTracker,
  type GuestFilesystemGrower,
  type GuestProbe,
  type RunningTracker,
} from '../vmwatcher/index.js';
import { waitUntil } from '../wait/index.js';
import { DemoError } from './demo-error.js';
import { SCENARIO } from './expansion-scenario.js';
import { kubeVirt } from './staged-objects.js';

/** The Lease the demo's tracker holds (in the scenario's namespace). */
export const DEMO_TRACKER_LEASE = 'voe-demo-tracker';

/**
 * Starts the tracker as `voe watch` runs it, on 127.0.0.1 and the scenario's KubeVirt CR, with no
 * guest probe (`voe demo --vm`: the local one, with the guest filesystem grower on its transport
 * and --guest-filesystem-growth), and waits until it leads with its caches listed: from then on it follows every
 * resize the webhook admits.
 */
export async function startDemoTracker(options: {
  kubeConfig: KubeConfig;
  logger: Logger;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** `voe demo --vm`: the local guest probe, read again at most every probeIntervalMs. */
  probe?: GuestProbe;
  probeIntervalMs?: number;
  /** `voe demo --vm`: the grower through the probe's transport, growth on (--guest-filesystem-growth). */
  grower?: GuestFilesystemGrower;
  leaseName?: string;
}): Promise<RunningTracker> {
  const kubevirt = kubeVirt().metadata!;
  const tracker = await startTracker({
    kubeConfig: options.kubeConfig,
    logger: options.logger,
    kubeVirtNamespace: kubevirt.namespace!,
    kubeVirtName: kubevirt.name!,
    leaseNamespace: SCENARIO.namespace,
    leaseName: options.leaseName ?? DEMO_TRACKER_LEASE,
    host: '127.0.0.1',
    port: 0,
    ...(options.probe ? { probe: options.probe } : {}),
    ...(options.probeIntervalMs ? { probeIntervalMs: options.probeIntervalMs } : {}),
    ...(options.grower ? { grower: options.grower, guestFilesystemGrowth: true } : {}),
  });
  const outcome = await waitUntil(() => tracker.isLeader(), {
    timeoutMs: options.timeoutMs,
    intervalMs: 25,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (outcome === 'ok') return tracker;
  await tracker.stop();
  if (outcome === 'aborted')
    throw new DemoError('DEMO_STOPPED', 'the demo was asked to stop while its tracker started');
  throw new DemoError(
    'DEMO_TIMEOUT',
    `the tracker did not lead with its caches listed within ${options.timeoutMs} ms; is the API server overloaded?`,
  );
}
