/**
 * The demo's second part: the tracker follows every resize the webhook admitted while test
 * actors play external-resizer, kubelet and virt-controller (expansion-plays.ts). After each
 * write, the demo waits until the tracker's VolumeExpansion, read through the API server, shows
 * the phase that write must lead to (or, for a phase the tracker passes through at once, records
 * it in status.phaseTimestamps), and records what it shows and how long that took.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { getObject, isNotFound, parseQuantity } from '../kube/index.js';
import { expansionName, VOLUME_EXPANSIONS, type VolumeExpansion } from '../vmwatcher/index.js';
import { ExpansionActors } from './actors/expansion-actors.js';
import { waitUntil } from '../wait/index.js';
import { DemoError } from './demo-error.js';
import { playsFor, type Play, type PlayTarget } from './expansion-plays.js';
import { pvNameOf, scenarioVms } from './expansion-scenario.js';

/** A resize the webhook admitted, in the order of the demo's steps. */
export interface AdmittedResize {
  namespace: string;
  claim: string;
  from: string;
  to: string;
}

/** One write and what the tracker showed after it. */
export interface TimelineEntry {
  actor: Play['actor'];
  action: string;
  phase: string;
  waitingFor?: string;
  reason: string;
  message: string;
  /** From the write until the VolumeExpansion showed this phase (none for what a demo step did). */
  afterMs?: number;
  /** How long the write itself took (the actor's time), ms. */
  actMs?: number;
  /** When the phase was seen, ms after the PVC edit (when followPlays was told when that was). */
  atMs?: number;
  /** The hypervisor's and the guest's bytes the VolumeExpansion recorded (with a guest probe). */
  hypervisor?: string;
  guest?: string;
  /** What the guest's filesystem growth found or did (status.guestFilesystem), once recorded. */
  guestFilesystem?: {
    result: string;
    mountPoint?: string;
    beforeBytes?: string;
    afterBytes?: string;
  };
}

export interface ExpansionResult {
  /** The VolumeExpansion, namespace/name. */
  expansion: string;
  pvc: string;
  vm: string;
  from: string;
  to: string;
  timeline: TimelineEntry[];
  /** Where the plays must leave it. */
  expected: Play['expect'];
  ok: boolean;
  /** When ok is false: the phase expected and the one the tracker showed. */
  mismatch?: string;
}

export interface FollowOptions {
  kubeConfig: KubeConfig;
  resizes: readonly AdmittedResize[];
  /** How long the tracker may take to show a phase; default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onExpansion?: (result: ExpansionResult) => void;
}

async function readExpansion(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
): Promise<VolumeExpansion | undefined> {
  try {
    return await getObject<VolumeExpansion>(kubeConfig, { ...VOLUME_EXPANSIONS, namespace, name });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function shows(expansion: VolumeExpansion | undefined, expect: Play['expect']): boolean {
  return (
    expansion?.status?.phase === expect.phase &&
    (expect.reason === undefined || expansion.status.reason === expect.reason)
  );
}

/** A passing play's phase the tracker entered and left between two reads: its status.phaseTimestamps entry. */
export function passedAt(expansion: VolumeExpansion | undefined, play: Play): string | undefined {
  if (!play.passing || expansion?.status?.phase === play.expect.phase) return undefined;
  return expansion?.status?.phaseTimestamps?.[play.expect.phase];
}

function describePhase(expansion: VolumeExpansion | undefined): string {
  if (expansion === undefined) return 'no VolumeExpansion';
  const status = expansion.status;
  return status?.phase ? `${status.phase} (${status.reason ?? 'no reason'})` : 'no phase yet';
}

/** Waits until the tracker shows `play.expect`; the last object read either way. */
async function awaitPhase(
  options: FollowOptions,
  namespace: string,
  name: string,
  play: Play,
): Promise<{ seen: VolumeExpansion | undefined; ok: boolean }> {
  let seen: VolumeExpansion | undefined;
  const outcome = await waitUntil(
    async () => {
      seen = await readExpansion(options.kubeConfig, namespace, name);
      return shows(seen, play.expect) || passedAt(seen, play) !== undefined;
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      intervalMs: 100,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  if (outcome === 'aborted')
    throw new DemoError('DEMO_STOPPED', `the demo was asked to stop while following ${name}`);
  return { seen, ok: outcome === 'ok' };
}

/** The phase, reason and message of the entry: as read, or, for a phase passed between reads, its record. */
function phaseOf(
  play: Play,
  seen: VolumeExpansion | undefined,
): Pick<TimelineEntry, 'phase' | 'waitingFor' | 'reason' | 'message'> {
  const passed = passedAt(seen, play);
  if (passed !== undefined)
    return {
      phase: play.expect.phase,
      reason: play.expect.reason ?? '',
      message: `entered at ${passed} (status.phaseTimestamps), left for ${describePhase(seen)} before the next read`,
    };
  return {
    phase: seen?.status?.phase ?? '',
    ...(seen?.status?.waitingFor ? { waitingFor: seen.status.waitingFor } : {}),
    reason: seen?.status?.reason ?? '',
    message: seen?.status?.message ?? '',
  };
}

function entryOf(
  play: Play,
  seen: VolumeExpansion | undefined,
  times: { afterMs?: number; actMs?: number; atMs?: number },
): TimelineEntry {
  const sizes = seen?.status?.sizes;
  const grown = passedAt(seen, play) === undefined ? seen?.status?.guestFilesystem : undefined;
  return {
    actor: play.actor,
    action: play.action,
    ...phaseOf(play, seen),
    ...(times.afterMs === undefined ? {} : { afterMs: times.afterMs }),
    ...(times.actMs === undefined ? {} : { actMs: times.actMs }),
    ...(times.atMs === undefined ? {} : { atMs: times.atMs }),
    ...(sizes?.hypervisor ? { hypervisor: sizes.hypervisor } : {}),
    ...(sizes?.guest ? { guest: sizes.guest } : {}),
    ...(grown?.result
      ? {
          guestFilesystem: {
            result: grown.result,
            ...(grown.mountPoint ? { mountPoint: grown.mountPoint } : {}),
            ...(grown.beforeBytes ? { beforeBytes: grown.beforeBytes } : {}),
            ...(grown.afterBytes ? { afterBytes: grown.afterBytes } : {}),
          },
        }
      : {}),
  };
}

/**
 * Plays one expansion through and records its timeline (each write, the phase it led to, how
 * long the write took and how soon the tracker showed the phase after it; `editedAt`, the
 * performance.now() of the PVC edit, adds when); stops at the first phase not shown in time.
 */
export async function followPlays(
  options: FollowOptions,
  actors: ExpansionActors,
  resize: AdmittedResize,
  plays: readonly Play[],
  vmName: string,
  extra: { lab?: PlayTarget['lab']; pvName?: string; editedAt?: number } = {},
): Promise<ExpansionResult> {
  const name = expansionName(resize.claim, parseQuantity(resize.to));
  const target: PlayTarget = {
    namespace: resize.namespace,
    claim: resize.claim,
    pvName: extra.pvName ?? pvNameOf(resize.claim),
    vmName,
    size: resize.to,
    ...(extra.lab ? { lab: extra.lab } : {}),
  };
  const timeline: TimelineEntry[] = [];
  const expected = plays[plays.length - 1]!.expect;
  const result = {
    expansion: `${resize.namespace}/${name}`,
    pvc: `${resize.namespace}/${resize.claim}`,
    vm: vmName,
    from: resize.from,
    to: resize.to,
    timeline,
    expected,
  };
  for (const play of plays) {
    const start = performance.now();
    await play.act?.(actors, target);
    const acted = performance.now();
    const { seen, ok } = await awaitPhase(options, resize.namespace, name, play);
    const now = performance.now();
    if (!ok) {
      const want = `${play.expect.phase}${play.expect.reason ? ` (${play.expect.reason})` : ''}`;
      return {
        ...result,
        ok: false,
        mismatch: `after ${play.actor} ${play.action}: expected ${want}; the tracker shows ${describePhase(seen)}`,
      };
    }
    timeline.push(
      entryOf(play, seen, {
        ...(play.act ? { afterMs: Math.round(now - acted), actMs: Math.round(acted - start) } : {}),
        ...(extra.editedAt === undefined ? {} : { atMs: Math.round(now - extra.editedAt) }),
      }),
    );
  }
  return { ...result, ok: true };
}

/** The VM of the scenario using the claim, and whether it runs. */
function vmOf(claim: string): { name: string; running: boolean } {
  for (const machine of scenarioVms()) {
    const volumes = machine.spec?.template?.spec?.volumes ?? [];
    const uses = volumes.some(
      (volume) =>
        (volume['persistentVolumeClaim'] as { claimName?: string } | undefined)?.claimName ===
        claim,
    );
    if (uses)
      return {
        name: machine.metadata?.name ?? '',
        running: machine.status?.printableStatus === 'Running',
      };
  }
  throw new DemoError('DEMO_API_FAILED', `no VM of the scenario uses PVC ${claim}`);
}

/**
 * Follows each admitted resize in turn: a resize that a later one on the same PVC replaced must
 * be Superseded; the others are played through (expansion-plays.ts) while the tracker runs.
 */
export async function followExpansions(options: FollowOptions): Promise<ExpansionResult[]> {
  const actors = new ExpansionActors(options.kubeConfig);
  const results: ExpansionResult[] = [];
  for (const [index, resize] of options.resizes.entries()) {
    if (options.signal?.aborted)
      throw new DemoError('DEMO_STOPPED', 'the demo was asked to stop between expansions');
    const newer = options.resizes
      .slice(index + 1)
      .find((later) => later.namespace === resize.namespace && later.claim === resize.claim);
    const vm = vmOf(resize.claim);
    const plays = playsFor({
      running: vm.running,
      ...(newer ? { supersededBy: newer.to } : {}),
    });
    const result = await followPlays(options, actors, resize, plays, vm.name);
    results.push(result);
    options.onExpansion?.(result);
  }
  return results;
}
