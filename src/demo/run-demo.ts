import type { KubeConfig } from '@kubernetes/client-node';
import { apiErrorOf } from '../kube/index.js';
import type { Logger } from '../log/index.js';
import type { AdmissionCaches, Cache, StartedAdmissionCaches } from '../host-cache/index.js';
import { admissionWiring, serveWebhook, WebhookError } from '../webhook/index.js';
import { DemoError } from './demo-error.js';
import { DEMO_STEPS, type DemoChange, type DemoOutcome, type DemoStep } from './demo-steps.js';
import { SCENARIO, stageExpansionScenario } from './expansion-scenario.js';
import { judgeStep, type ApiAnswer } from './judge-step.js';
import { KINDS, StagedCluster } from './staged-cluster.js';
import { VoeAnswers } from './voe-answers.js';
import { waitUntil } from '../wait/index.js';
import { followExpansions, type ExpansionResult } from './follow-expansions.js';
import { stageRunningInstances } from './running-instances.js';
import { startDemoTracker } from './start-demo-tracker.js';
import {
  listExpansions,
  statusRow,
  type RunningTracker,
  type StatusRow,
} from '../vmwatcher/index.js';

export interface DemoStepResult {
  step: number;
  title: string;
  /** What was changed before this resize, if anything. */
  change?: string;
  pvc: string;
  from: string;
  to: string;
  expected: DemoOutcome;
  /** When a refusal is expected: the voe webhook's decision label it must carry, e.g. "gate-missing". */
  expectedDecision?: string;
  outcome: DemoOutcome;
  /** The API server's answer to a refused update (HTTP code and the message the user sees). */
  code?: number;
  message?: string;
  /** For a refusal: 'voe-webhook' when it is the voe webhook's refusal of this update, 'other' for any other (another webhook, a policy, RBAC, validation). */
  refusedBy?: 'voe-webhook' | 'other';
  /** The decision label the demo's voe webhook gave this update, when the API server called it (e.g. "allowed", "gate-missing"). */
  decision?: string;
  /**
   * The answer is the one Harvester's design asks for: admitted when admission is expected;
   * refused by the voe webhook with expectedDecision when a refusal is. Any other refusal is a mismatch.
   */
  ok: boolean;
  /** When ok is false: what was expected and what came back. */
  mismatch?: string;
}

export interface DemoReport {
  webhookUrl: string;
  configurationName: string;
  steps: DemoStepResult[];
  /** The tracker's /livez, /readyz and /metrics address. */
  trackerUrl: string;
  /** Each admitted resize as the tracker followed it while the test actors played. */
  expansions: ExpansionResult[];
  /** Every VolumeExpansion at the end, as `voe status` shows it. */
  status: StatusRow[];
  /** Every answer is the design's and every expansion reached the phase its plays lead to. */
  ok: boolean;
}

export interface RunDemoOptions {
  /** A cluster that serves the KubeVirt, Harvester and Longhorn CRDs and holds none of the scenario's objects (a fresh local control plane). */
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Called after each step (to print progress). */
  onStep?: (result: DemoStepResult) => void;
  /** Called after each admitted resize was followed through. */
  onExpansion?: (result: ExpansionResult) => void;
  /** How long to wait for the webhook's caches to see a change; default 30 s. */
  cacheTimeoutMs?: number;
  /**
   * Aborted to stop: the step under way ends (its answer is reported), no further step starts,
   * the webhook and its registration are removed, and runDemo rejects with DEMO_STOPPED.
   */
  signal?: AbortSignal;
}

export const DEMO_CONFIGURATION_NAME = 'voe-demo';

/**
 * A refusal the user would see (4xx other than 404), with the API server's status reason and
 * message; undefined for anything else. Who refused is judged by judgeStep.
 */
function refusalOf(error: unknown): { code: number; reason?: string; message: string } | undefined {
  const status = apiErrorOf(error);
  if (status === undefined || status.code < 400 || status.code >= 500 || status.code === 404)
    return undefined;
  return {
    code: status.code,
    ...(status.reason ? { reason: status.reason } : {}),
    message: status.message || String(error),
  };
}

function stopIfAsked(signal: AbortSignal | undefined, where: string): void {
  if (signal?.aborted) throw new DemoError('DEMO_STOPPED', `the demo was asked to stop ${where}`);
}

async function waitForResourceVersion(
  cache: Cache<unknown> | undefined,
  namespace: string | undefined,
  name: string,
  resourceVersion: string | undefined,
  timeoutMs: number,
  what: string,
  signal?: AbortSignal,
): Promise<void> {
  if (cache === undefined || resourceVersion === undefined) return;
  const outcome = await waitUntil(
    () => {
      const seen = (
        cache.get(namespace, name) as { metadata?: { resourceVersion?: string } } | undefined
      )?.metadata?.resourceVersion;
      if (seen === resourceVersion) return true;
      stopIfAsked(signal, `while waiting for the webhook's caches to see "${what}"`);
      return false;
    },
    { timeoutMs, intervalMs: 25 },
  );
  if (outcome === 'timeout') {
    throw new DemoError(
      'DEMO_TIMEOUT',
      `the webhook's informer cache did not see the change "${what}" within ${timeoutMs} ms; is the API server overloaded?`,
    );
  }
}

/**
 * `voe demo`: stages the admission test plan's scenario (running VMs on Longhorn v1/v2, NFS and TopoLVM
 * volumes, a stopped VM) in the cluster, runs the voe webhook locally and registers it, then
 * tries each resize of DEMO_STEPS as a user would (a PVC update through the API server) and
 * records whether the API server admitted or refused it, with its message, and whether a refusal
 * is the voe webhook's own for the step's reason (the webhook runs here, so its verdict for the
 * update is known; judgeStep compares). Operator and peer
 * changes between steps (Setting, Longhorn version, KubeVirt gates) are written to the API and
 * the step waits until the webhook's caches hold them. The webhook configuration is removed at
 * the end; the staged objects stay (the local control plane is thrown away).
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoReport> {
  const { kubeConfig, logger, signal } = options;
  const timeoutMs = options.cacheTimeoutMs ?? 30_000;
  const cluster = new StagedCluster(kubeConfig);
  stopIfAsked(signal, 'before staging its scenario');
  try {
    await stageExpansionScenario(cluster);
    await stageRunningInstances(cluster);
  } catch (error) {
    throw new DemoError(
      'DEMO_API_FAILED',
      `staging the demo's VMs and volumes failed: ${(error as Error).message.split('\n')[0]}; the demo stages its own objects and needs a control plane that holds none of them: run voe demo without --dir, or with a new or empty --dir`,
      { cause: error },
    );
  }
  let started: StartedAdmissionCaches | undefined;
  const wiring = admissionWiring();
  const answers = new VoeAnswers();
  const serving = await serveWebhook({
    kubeConfig,
    logger,
    host: '127.0.0.1',
    port: 0,
    dev: true,
    configurationName: DEMO_CONFIGURATION_NAME,
    startCaches: async (config, log) => (started = await wiring.startCaches(config, log)),
    createValidators: (caches) => answers.record(wiring.createValidators(caches)),
    ...(signal ? { signal } : {}),
  }).catch((error: unknown) => {
    // Stopped while starting: serveWebhook has undone what it did.
    if (error instanceof WebhookError && error.code === 'WEBHOOK_START_ABORTED')
      stopIfAsked(signal, 'while starting its webhook');
    throw error;
  });
  let tracker: RunningTracker | undefined;
  try {
    tracker = await startDemoTracker({ kubeConfig, logger, timeoutMs, signal });
    const caches = started!.caches.admission;
    const steps: DemoStepResult[] = [];
    for (const [index, step] of DEMO_STEPS.entries()) {
      stopIfAsked(signal, `before step ${index + 1} of ${DEMO_STEPS.length}`);
      if (step.change) await applyChange(cluster, caches, step.change, timeoutMs, signal);
      const result = await tryResize(cluster, answers, index + 1, step);
      steps.push(result);
      options.onStep?.(result);
    }
    stopIfAsked(signal, 'before following the admitted resizes');
    const expansions = await followExpansions({
      kubeConfig,
      resizes: steps
        .filter((step) => step.outcome === 'admitted')
        .map((step) => ({
          namespace: SCENARIO.namespace,
          claim: DEMO_STEPS[step.step - 1]!.claim,
          from: step.from,
          to: step.to,
        })),
      timeoutMs,
      ...(signal ? { signal } : {}),
      ...(options.onExpansion ? { onExpansion: options.onExpansion } : {}),
    });
    const status = (await listExpansions(kubeConfig, SCENARIO.namespace)).map(statusRow);
    return {
      webhookUrl: serving.url,
      configurationName: DEMO_CONFIGURATION_NAME,
      steps,
      trackerUrl: tracker.url,
      expansions,
      status,
      ok: steps.every((s) => s.ok) && expansions.every((e) => e.ok),
    };
  } finally {
    await tracker?.stop();
    await serving.stop();
  }
}

/** The webhook cache that holds objects of `kind` (the KINDS keys are the AdmissionCaches keys). */
function cacheOf(caches: AdmissionCaches, kind: DemoChange['kind']): Cache<unknown> | undefined {
  switch (kind) {
    case KINDS.vms:
      return caches.vms;
    case KINDS.vmis:
      return caches.vmis;
    case KINDS.kubeVirts:
      return caches.kubeVirts;
    case KINDS.settings:
      return caches.settings;
    case KINDS.longhornVolumes:
      return caches.longhornVolumes;
    case KINDS.longhornEngines:
      return caches.longhornEngines;
    case KINDS.longhornSettings:
      return caches.longhornSettings;
    default:
      return undefined;
  }
}

async function applyChange(
  cluster: StagedCluster,
  caches: AdmissionCaches,
  change: DemoChange,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let resourceVersion: string | undefined;
  try {
    resourceVersion = change.status
      ? await cluster.patchCustomStatus(change.kind, change.name, change.patch, change.namespace)
      : await cluster.patchCustom(change.kind, change.name, change.patch, change.namespace);
  } catch (error) {
    throw new DemoError(
      'DEMO_API_FAILED',
      `writing "${change.describe}" failed: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
  await waitForResourceVersion(
    cacheOf(caches, change.kind),
    change.namespace,
    change.name,
    resourceVersion,
    timeoutMs,
    change.describe,
    signal,
  );
}

async function tryResize(
  cluster: StagedCluster,
  answers: VoeAnswers,
  number: number,
  step: DemoStep,
): Promise<DemoStepResult> {
  const namespace = SCENARIO.namespace;
  const before = await cluster.core.readNamespacedPersistentVolumeClaim({
    namespace,
    name: step.claim,
  });
  const from = String(before.spec?.resources?.requests?.['storage'] ?? '');
  const pvc = `${namespace}/${step.claim}`;
  const mark = answers.mark();
  let answer: ApiAnswer;
  try {
    await cluster.resizeClaim(namespace, step.claim, step.size);
    answer = { outcome: 'admitted' };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === undefined) {
      throw new DemoError(
        'DEMO_API_FAILED',
        `updating PVC ${pvc} failed: ${(error as Error).message.split('\n')[0]}`,
        { cause: error },
      );
    }
    answer = { outcome: 'refused', ...refusal };
  }
  const voe = answers.since(mark, pvc);
  const { ok, refusedBy, mismatch } = judgeStep(step, answer, voe);
  return {
    step: number,
    title: step.title,
    ...(step.change ? { change: step.change.describe } : {}),
    pvc,
    from,
    to: step.size,
    expected: step.expect,
    ...(step.expect === 'refused' ? { expectedDecision: step.decision } : {}),
    outcome: answer.outcome,
    ...(answer.outcome === 'refused' ? { code: answer.code, message: answer.message } : {}),
    ...(refusedBy ? { refusedBy } : {}),
    ...(voe ? { decision: voe.decision } : {}),
    ok,
    ...(mismatch ? { mismatch } : {}),
  };
}
