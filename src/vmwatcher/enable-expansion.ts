import type { KubeClientConfig } from '../kube/index.js';
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
import type { KubeVirt } from '../model/index.js';

export interface EnablementOptions {
  kubeConfig: KubeClientConfig;
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
  const gate = await enableGate(options);
  const setting = await ensureSetting(options);
  return report(options, [gate, setting], EventAction.Enable);
}

/**
 * `voe disable`: undoes only what `voe enable` recorded: ExpandDisks leaves featureGates when the
 * annotation says voe added it (and the annotation goes); the Setting voe created is deleted
 * unless a value was set since (then it stays, without voe's mark). Anything else is left as it
 * is. Idempotent. Each change is an Event and a log line.
 */
export async function disableExpansion(options: EnablementOptions): Promise<EnablementStep[]> {
  const gate = await disableGate(options);
  const setting = await removeSetting(options);
  return report(options, [gate, setting], EventAction.Disable);
}

/** What enable does to the gate, by planGate: nothing (GA, listed, disabled by the administrator) or add it. */
async function enableGate(options: EnablementOptions): Promise<Step> {
  const kubeVirt = await readKubeVirt(options);
  const object = `kubevirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  const plan = planGate(kubeVirt);
  switch (plan.action) {
    case 'ga':
      return {
        object,
        changed: false,
        message: `KubeVirt ${plan.version} has ExpandDisks GA (always on): nothing to add.`,
      };
    case 'disabled-by-user':
      return {
        object,
        changed: false,
        message:
          "ExpandDisks is listed in disabledFeatureGates: voe enable changes nothing (that is the administrator's choice). Remove it from spec.configuration.developerConfiguration.disabledFeatureGates to let KubeVirt grow disks online, then run voe enable again.",
        event: {
          reason: EventReason.ExpandDisksDisabledByUser,
          type: 'Warning',
          regarding: kubeVirtRef(kubeVirt),
        },
      };
    case 'listed':
      return {
        object,
        changed: false,
        message: 'ExpandDisks is already in featureGates (not added by voe): left as it is.',
      };
    case 'already-added':
      return {
        object,
        changed: false,
        message: 'ExpandDisks is already in featureGates, added by voe enable.',
      };
    case 'add': {
      const updated = await updateKubeVirt(options, (current) =>
        planGate(current).action === 'add' ? withGateAdded(current) : undefined,
      );
      return {
        object,
        changed: true,
        message:
          'Added ExpandDisks to spec.configuration.developerConfiguration.featureGates (recorded in the annotation storage.voe.dev/added-feature-gates; voe disable removes it).',
        event: {
          reason: EventReason.ExpandDisksEnabled,
          type: 'Normal',
          regarding: kubeVirtRef(updated),
        },
      };
    }
  }
}

/** Creates the Setting with Harvester's default unless it exists (or the cluster serves no Settings). */
async function ensureSetting(options: EnablementOptions): Promise<Step> {
  const object = `setting ${options.settingName}`;
  const setting = await readSetting(options);
  if (planSetting(setting).action === 'exists')
    return { object, changed: false, message: 'The Setting exists: left as it is.' };
  try {
    const created = await requestJson<HarvesterSetting>(options.kubeConfig, {
      method: 'POST',
      path: resourcePath(SETTINGS),
      body: defaultExpandSetting(options.settingName),
    });
    return {
      object,
      changed: true,
      message: `Created the Setting with Harvester's default ${created.default ?? ''} (marked storage.voe.dev/created-by; voe disable deletes it unless a value was set since).`,
      event: {
        reason: EventReason.ExpandSettingCreated,
        type: 'Normal',
        regarding: settingRef(created),
      },
    };
  } catch (error) {
    if (!isNotFound(error)) throw apiFailed(`creating the Setting ${options.settingName}`, error);
    return {
      object,
      changed: false,
      message:
        'The cluster does not serve settings.harvesterhci.io (not a Harvester cluster): no Setting to create.',
    };
  }
}

/** Removes ExpandDisks from featureGates only when voe enable recorded adding it. */
async function disableGate(options: EnablementOptions): Promise<Step> {
  const kubeVirt = await readKubeVirt(options);
  const object = `kubevirt ${options.kubeVirtNamespace}/${options.kubeVirtName}`;
  if (planGateRemoval(kubeVirt).action === 'not-ours')
    return {
      object,
      changed: false,
      message: 'voe enable did not add ExpandDisks here: featureGates left as they are.',
    };
  const updated = await updateKubeVirt(options, (current) =>
    planGateRemoval(current).action === 'remove' ? withGateRemoved(current) : undefined,
  );
  return {
    object,
    changed: true,
    message:
      'Removed ExpandDisks, which voe enable had added, from featureGates (and its record in the annotation storage.voe.dev/added-feature-gates).',
    event: {
      reason: EventReason.ExpandDisksRemoved,
      type: 'Normal',
      regarding: kubeVirtRef(updated),
    },
  };
}

/** Deletes the Setting voe created, or only its mark once a value was set; leaves any other alone. */
async function removeSetting(options: EnablementOptions): Promise<Step> {
  const object = `setting ${options.settingName}`;
  const setting = await readSetting(options);
  const plan = planSettingRemoval(setting);
  try {
    if (plan.action === 'absent')
      return { object, changed: false, message: 'There is no Setting: nothing to remove.' };
    if (plan.action === 'not-ours')
      return {
        object,
        changed: false,
        message: 'voe enable did not create the Setting: left as it is.',
      };
    if (plan.action === 'delete') return await deleteOwnSetting(options, object, setting!);
    return await unmarkSetting(options, object, setting!);
  } catch (error) {
    if (isNotFound(error))
      return { object, changed: false, message: 'The Setting is gone already.' };
    throw apiFailed(`removing the Setting ${options.settingName}`, error);
  }
}

async function deleteOwnSetting(
  options: EnablementOptions,
  object: string,
  setting: HarvesterSetting,
): Promise<Step> {
  await requestJson(options.kubeConfig, {
    method: 'DELETE',
    path: resourcePath({ ...SETTINGS, name: options.settingName }),
    // Only the version read: a value set meanwhile makes this a 409, and nothing is deleted.
    body: { preconditions: { resourceVersion: setting.metadata?.resourceVersion } },
  });
  return {
    object,
    changed: true,
    message: 'Deleted the Setting voe enable had created (no value was set since).',
    event: {
      reason: EventReason.ExpandSettingDeleted,
      type: 'Normal',
      regarding: settingRef(setting),
    },
  };
}

async function unmarkSetting(
  options: EnablementOptions,
  object: string,
  setting: HarvesterSetting,
): Promise<Step> {
  const annotations = {
    ...(setting.metadata as { annotations?: Record<string, string> }).annotations,
  };
  delete annotations[CREATED_BY_ANNOTATION];
  await requestJson(options.kubeConfig, {
    method: 'PUT',
    path: resourcePath({ ...SETTINGS, name: options.settingName }),
    body: { ...setting, metadata: { ...setting.metadata, annotations } },
  });
  return {
    object,
    changed: true,
    message: `Kept the Setting voe enable had created: its value was set since (${setting.value}); only voe's mark was removed.`,
    event: {
      reason: EventReason.ExpandSettingKept,
      type: 'Normal',
      regarding: settingRef(setting),
    },
  };
}
