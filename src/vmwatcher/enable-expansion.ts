import type { KubeConfig } from '@kubernetes/client-node';
import {
  getObject,
  isNotFound,
  replaceObject,
  requestJson,
  resourcePath,
  updateWithRetry,
  type EventRecorder,
  type EventType,
  type ObjectRef,
} from '../kube/index.js';
import type { Logger } from '../log/index.js';
import type { HarvesterSetting } from '../settings/index.js';
import { EventAction, EventReason, type EventReasonValue } from './event-reasons.js';
import {
  CREATED_BY_ANNOTATION,
  defaultExpandSetting,
  planGate,
  planGateRemoval,
  planSetting,
  planSettingRemoval,
  withGateAdded,
  withGateRemoved,
} from './plan-enablement.js';
import { TrackerError } from './tracker-error.js';
import type { KubeVirt } from './tracker-objects.js';

export interface EnablementOptions {
  kubeConfig: KubeConfig;
  kubeVirtNamespace: string;
  kubeVirtName: string;
  /** The csi-online-expand-validation Setting's name. */
  settingName: string;
  recorder?: EventRecorder;
  logger?: Logger;
}

/** One thing `voe enable` or `voe disable` did or left, as printed and logged. */
export interface EnablementStep {
  /** e.g. `kubevirt harvester-system/kubevirt`, `setting csi-online-expand-validation`. */
  object: string;
  changed: boolean;
  message: string;
}

const KUBEVIRTS = { group: 'kubevirt.io', version: 'v1', plural: 'kubevirts' };
const SETTINGS = { group: 'harvesterhci.io', version: 'v1beta1', plural: 'settings' };

type Step = EnablementStep & {
  event?: { reason: EventReasonValue; type: EventType; regarding: ObjectRef };
};

function kubeVirtRef(kubeVirt: KubeVirt): ObjectRef {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'KubeVirt',
    name: kubeVirt.metadata?.name ?? '',
    namespace: kubeVirt.metadata?.namespace ?? '',
    ...(kubeVirt.metadata?.uid ? { uid: kubeVirt.metadata.uid } : {}),
  };
}

function settingRef(setting: HarvesterSetting): ObjectRef {
  const uid = (setting.metadata as { uid?: string } | undefined)?.uid;
  return {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'Setting',
    name: setting.metadata?.name ?? '',
    ...(uid ? { uid } : {}),
  };
}

function apiFailed(what: string, error: unknown): TrackerError {
  return new TrackerError(
    'TRACKER_API_FAILED',
    `${what} failed: ${error instanceof Error ? error.message : String(error)}; check the kubeconfig and RBAC`,
    { cause: error },
  );
}

async function readKubeVirt(options: EnablementOptions): Promise<KubeVirt> {
  const where = `${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  try {
    return await getObject<KubeVirt>(options.kubeConfig, {
      ...KUBEVIRTS,
      namespace: options.kubeVirtNamespace,
      name: options.kubeVirtName,
    });
  } catch (error) {
    if (isNotFound(error)) {
      throw new TrackerError(
        'TRACKER_KUBEVIRT_MISSING',
        `there is no KubeVirt CR ${where} (or the cluster does not serve kubevirts.kubevirt.io); install KubeVirt, or name its CR with --kubevirt-namespace and --kubevirt-name (upstream: kubevirt/kubevirt).`,
        { cause: error },
      );
    }
    throw apiFailed(`reading the KubeVirt CR ${where}`, error);
  }
}

async function readSetting(options: EnablementOptions): Promise<HarvesterSetting | undefined> {
  try {
    return await getObject<HarvesterSetting>(options.kubeConfig, {
      ...SETTINGS,
      name: options.settingName,
    });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw apiFailed(`reading the Setting ${options.settingName}`, error);
  }
}

/** Writes the KubeVirt CR from a fresh read each attempt (409: read again). */
async function updateKubeVirt(
  options: EnablementOptions,
  mutate: (kubeVirt: KubeVirt) => KubeVirt | undefined,
): Promise<KubeVirt> {
  const ref = { ...KUBEVIRTS, namespace: options.kubeVirtNamespace, name: options.kubeVirtName };
  try {
    return await updateWithRetry(
      () => getObject<KubeVirt>(options.kubeConfig, ref),
      mutate,
      (next) => replaceObject<KubeVirt>(options.kubeConfig, ref, next),
      { what: `update KubeVirt ${ref.namespace}/${ref.name}` },
    );
  } catch (error) {
    throw apiFailed(`updating the KubeVirt CR ${ref.namespace}/${ref.name}`, error);
  }
}

function report(options: EnablementOptions, steps: Step[], action: string): EnablementStep[] {
  for (const step of steps) {
    const fields = { object: step.object, changed: step.changed, action };
    if (step.event?.type === 'Warning') options.logger?.warn(fields, step.message);
    else options.logger?.info(fields, step.message);
    if (step.event) {
      options.recorder?.record({
        regarding: step.event.regarding,
        type: step.event.type,
        reason: step.event.reason,
        action,
        note: step.message,
      });
    }
  }
  return steps.map(({ object, changed, message }) => ({ object, changed, message }));
}

/**
 * `voe enable`: adds ExpandDisks to the KubeVirt CR's featureGates unless KubeVirt has it GA
 * (>= v1.9.0), lists it already, or lists it in disabledFeatureGates (then nothing changes and a
 * Warning says so), recording what it added in the CR's annotation storage.voe.dev/added-feature-gates;
 * creates the csi-online-expand-validation Setting with Harvester's default when it is missing,
 * marked with storage.voe.dev/created-by. Idempotent. Each change is an Event and a log line.
 */
export async function enableExpansion(options: EnablementOptions): Promise<EnablementStep[]> {
  const steps: Step[] = [];
  const kubeVirt = await readKubeVirt(options);
  const where = `kubevirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  const plan = planGate(kubeVirt);
  switch (plan.action) {
    case 'ga':
      steps.push({
        object: where,
        changed: false,
        message: `KubeVirt ${plan.version} has ExpandDisks GA (always on): nothing to add.`,
      });
      break;
    case 'disabled-by-user':
      steps.push({
        object: where,
        changed: false,
        message:
          "ExpandDisks is listed in disabledFeatureGates: voe enable changes nothing (that is the administrator's choice). Remove it from spec.configuration.developerConfiguration.disabledFeatureGates to let KubeVirt grow disks online, then run voe enable again.",
        event: {
          reason: EventReason.ExpandDisksDisabledByUser,
          type: 'Warning',
          regarding: kubeVirtRef(kubeVirt),
        },
      });
      break;
    case 'listed':
      steps.push({
        object: where,
        changed: false,
        message: 'ExpandDisks is already in featureGates (not added by voe): left as it is.',
      });
      break;
    case 'already-added':
      steps.push({
        object: where,
        changed: false,
        message: 'ExpandDisks is already in featureGates, added by voe enable.',
      });
      break;
    case 'add': {
      const updated = await updateKubeVirt(options, (current) =>
        planGate(current).action === 'add' ? withGateAdded(current) : undefined,
      );
      steps.push({
        object: where,
        changed: true,
        message:
          'Added ExpandDisks to spec.configuration.developerConfiguration.featureGates (recorded in the annotation storage.voe.dev/added-feature-gates; voe disable removes it).',
        event: {
          reason: EventReason.ExpandDisksEnabled,
          type: 'Normal',
          regarding: kubeVirtRef(updated),
        },
      });
      break;
    }
  }
  const settingObject = `setting ${options.settingName}`;
  const setting = await readSetting(options);
  if (planSetting(setting).action === 'exists') {
    steps.push({
      object: settingObject,
      changed: false,
      message: 'The Setting exists: left as it is.',
    });
  } else {
    try {
      const created = await requestJson<HarvesterSetting>(options.kubeConfig, {
        method: 'POST',
        path: resourcePath(SETTINGS),
        body: defaultExpandSetting(options.settingName),
      });
      steps.push({
        object: settingObject,
        changed: true,
        message: `Created the Setting with Harvester's default ${created.default ?? ''} (marked storage.voe.dev/created-by; voe disable deletes it unless a value was set since).`,
        event: {
          reason: EventReason.ExpandSettingCreated,
          type: 'Normal',
          regarding: settingRef(created),
        },
      });
    } catch (error) {
      if (!isNotFound(error)) throw apiFailed(`creating the Setting ${options.settingName}`, error);
      steps.push({
        object: settingObject,
        changed: false,
        message:
          'The cluster does not serve settings.harvesterhci.io (not a Harvester cluster): no Setting to create.',
      });
    }
  }
  return report(options, steps, EventAction.Enable);
}

/**
 * `voe disable`: undoes only what `voe enable` recorded: ExpandDisks leaves featureGates when the
 * annotation says voe added it (and the annotation goes); the Setting voe created is deleted
 * unless a value was set since (then it stays, without voe's mark). Anything else is left as it
 * is. Idempotent. Each change is an Event and a log line.
 */
export async function disableExpansion(options: EnablementOptions): Promise<EnablementStep[]> {
  const steps: Step[] = [];
  const kubeVirt = await readKubeVirt(options);
  const where = `kubevirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  if (planGateRemoval(kubeVirt).action === 'not-ours') {
    steps.push({
      object: where,
      changed: false,
      message: 'voe enable did not add ExpandDisks here: featureGates left as they are.',
    });
  } else {
    const updated = await updateKubeVirt(options, (current) =>
      planGateRemoval(current).action === 'remove' ? withGateRemoved(current) : undefined,
    );
    steps.push({
      object: where,
      changed: true,
      message:
        'Removed ExpandDisks, which voe enable had added, from featureGates (and its record in the annotation storage.voe.dev/added-feature-gates).',
      event: {
        reason: EventReason.ExpandDisksRemoved,
        type: 'Normal',
        regarding: kubeVirtRef(updated),
      },
    });
  }
  const settingObject = `setting ${options.settingName}`;
  const setting = await readSetting(options);
  const plan = planSettingRemoval(setting);
  const settingPath = resourcePath({ ...SETTINGS, name: options.settingName });
  try {
    if (plan.action === 'absent') {
      steps.push({
        object: settingObject,
        changed: false,
        message: 'There is no Setting: nothing to remove.',
      });
    } else if (plan.action === 'not-ours') {
      steps.push({
        object: settingObject,
        changed: false,
        message: 'voe enable did not create the Setting: left as it is.',
      });
    } else if (plan.action === 'delete') {
      await requestJson(options.kubeConfig, {
        method: 'DELETE',
        path: settingPath,
        // Only the version read: a value set meanwhile makes this a 409, and nothing is deleted.
        body: { preconditions: { resourceVersion: setting!.metadata?.resourceVersion } },
      });
      steps.push({
        object: settingObject,
        changed: true,
        message: 'Deleted the Setting voe enable had created (no value was set since).',
        event: {
          reason: EventReason.ExpandSettingDeleted,
          type: 'Normal',
          regarding: settingRef(setting!),
        },
      });
    } else {
      const annotations = {
        ...(setting!.metadata as { annotations?: Record<string, string> }).annotations,
      };
      delete annotations[CREATED_BY_ANNOTATION];
      await requestJson(options.kubeConfig, {
        method: 'PUT',
        path: settingPath,
        body: { ...setting, metadata: { ...setting!.metadata, annotations } },
      });
      steps.push({
        object: settingObject,
        changed: true,
        message: `Kept the Setting voe enable had created: its value was set since (${setting!.value}); only voe's mark was removed.`,
        event: {
          reason: EventReason.ExpandSettingKept,
          type: 'Normal',
          regarding: settingRef(setting!),
        },
      });
    }
  } catch (error) {
    if (isNotFound(error)) {
      steps.push({
        object: settingObject,
        changed: false,
        message: 'The Setting is gone already.',
      });
    } else throw apiFailed(`removing the Setting ${options.settingName}`, error);
  }
  return report(options, steps, EventAction.Disable);
}
