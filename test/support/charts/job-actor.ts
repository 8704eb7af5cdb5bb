import { BatchV1Api, type V1Job, type V1JobCondition } from '@kubernetes/client-node';
import type { ControlPlane } from '../../../src/controlplane/index.js';
import { isNotFound } from '../../../src/kube/index.js';
import { runVoe } from '../run-voe.js';
import { serviceAccount } from './cluster.js';

/** One run of a Job's container: its arguments, exit code and output. */
export interface JobRun {
  job: string;
  args: string[];
  code: number;
  output: string;
}

export interface JobActor {
  /** Every container run so far, in order. */
  readonly runs: JobRun[];
  /** Stops watching, once the Jobs created before it are played (a run under way ends first). */
  stop(): Promise<void>;
}

/**
 * Plays the Job controller and the kubelet for the Jobs of `namespace` (the charts' hook Jobs,
 * a Job made from the certificates CronJob) on a control plane that runs neither: each new Job's
 * single container, whose image's entrypoint is `voe`, runs as a `voe` process with its
 * ServiceAccount's credentials, and the Job's status is written as kube-controller-manager's
 * Job controller writes it (pkg/controller/job/job_controller.go, (*Controller).syncJob): first
 * startTime and one active pod; once the pod ended, the pod counted (succeeded or failed) and,
 * when finished, the interim condition (SuccessCriteriaMet, or FailureTarget with
 * BackoffLimitExceeded once more pods failed than spec.backoffLimit) and then the terminal one
 * (Complete, or Failed) with completionTime for a success. A failed pod is replaced after the
 * controller's back-off (10 s, doubling), as its pod replacement does.
 */
export function playJobs(cp: ControlPlane, namespace: string): JobActor {
  const batch = cp.kubeConfig.makeApiClient(BatchV1Api);
  const runs: JobRun[] = [];
  const seen = new Set<string>();
  let stopped = false;

  async function writeStatus(job: V1Job, status: V1Job['status']): Promise<V1Job> {
    return await batch.replaceNamespacedJobStatus({
      namespace,
      name: job.metadata!.name!,
      body: { ...job, status },
    });
  }

  async function runPod(job: V1Job): Promise<JobRun> {
    const pod = job.spec!.template.spec!;
    const account = serviceAccount(namespace, pod.serviceAccountName ?? 'default');
    const { path } = await cp.mintKubeConfig(account.user, account.groups);
    const args = pod.containers[0]!.args ?? [];
    const result = await runVoe([...args, '--kubeconfig', path], {
      timeout: (job.spec!.activeDeadlineSeconds ?? 300) * 1000,
    });
    const run = {
      job: job.metadata!.name!,
      args,
      code: result.code,
      output: result.stdout + result.stderr,
    };
    runs.push(run);
    return run;
  }

  const condition = (type: string, reason: string, message: string): V1JobCondition => {
    const now = new Date();
    return { type, status: 'True', reason, message, lastProbeTime: now, lastTransitionTime: now };
  };

  async function sync(created: V1Job): Promise<void> {
    let job = await writeStatus(created, { startTime: new Date(), active: 1 });
    // The stored startTime (whole seconds), which the API server refuses to see changed.
    const startTime = job.status!.startTime!;
    const backoffLimit = job.spec!.backoffLimit ?? 6;
    let failed = 0;
    for (;;) {
      const run = await runPod(job);
      if (run.code === 0) {
        job = await writeStatus(job, {
          startTime,
          succeeded: 1,
          failed,
          ready: 0,
          uncountedTerminatedPods: {},
          conditions: [
            condition(
              'SuccessCriteriaMet',
              'CompletionsReached',
              'Reached expected number of succeeded pods',
            ),
          ],
        });
        await writeStatus(job, {
          ...job.status,
          completionTime: new Date(),
          conditions: [
            ...job.status!.conditions!,
            condition(
              'Complete',
              'CompletionsReached',
              'Reached expected number of succeeded pods',
            ),
          ],
        });
        return;
      }
      failed += 1;
      if (failed > backoffLimit) {
        const reason = 'BackoffLimitExceeded';
        const message = 'Job has reached the specified backoff limit';
        job = await writeStatus(job, {
          startTime,
          failed,
          ready: 0,
          uncountedTerminatedPods: {},
          conditions: [condition('FailureTarget', reason, message)],
        });
        await writeStatus(job, {
          ...job.status,
          conditions: [...job.status!.conditions!, condition('Failed', reason, message)],
        });
        return;
      }
      job = await writeStatus(job, { startTime, active: 1, failed, ready: 0 });
      await new Promise((resolve) => setTimeout(resolve, 10_000 * 2 ** (failed - 1)));
    }
  }

  /** Plays every Job not seen yet and not finished. */
  async function pass(): Promise<void> {
    const jobs = await batch.listNamespacedJob({ namespace }).catch(() => ({ items: [] }));
    for (const job of jobs.items) {
      const uid = job.metadata!.uid!;
      if (seen.has(uid) || job.status?.conditions?.length) continue;
      seen.add(uid);
      await sync(job).catch((error: unknown) => {
        // Deleted meanwhile (helm's before-hook-creation, hook-succeeded): nothing to write.
        if (!isNotFound(error)) throw error;
      });
    }
  }

  // A pass begun after stop() was asked is the last: a Job created before stop() is played.
  const loop = (async () => {
    for (;;) {
      const last = stopped;
      await pass();
      if (last) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  return {
    runs,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
