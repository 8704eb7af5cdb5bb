import { EXPAND_VALIDATION_HARVESTER_DEFAULT, type HarvesterSetting } from '../settings/index.js';
import { EXPAND_DISKS_GA_SINCE, versionAtLeast, type KubeVirt } from '../model/index.js';

export const EXPAND_DISKS_GATE = 'ExpandDisks';
/** On the KubeVirt CR: the feature gates `voe enable` added (comma-separated), and only those `voe disable` removes. */
export const ADDED_GATES_ANNOTATION = 'storage.voe.dev/added-feature-gates';
/** On the Setting: present when `voe enable` created it (value: who). */
export const CREATED_BY_ANNOTATION = 'storage.voe.dev/created-by';
export const CREATED_BY_ENABLE = 'voe enable';

/** What `voe enable` does to the KubeVirt CR's gate. */
export type GatePlan =
  /** ExpandDisks is GA in this KubeVirt: nothing to add. */
  | { action: 'ga'; version: string }
  /** Listed in disabledFeatureGates and not in featureGates: nothing changed (the user's choice), said as a warning. */
  | { action: 'disabled-by-user' }
  /** Already in featureGates, added by someone else: left as it is, not recorded. */
  | { action: 'listed' }
  /** Already in featureGates, added by voe enable before. */
  | { action: 'already-added' }
  | { action: 'add' };

/** What `voe disable` does to the gate. */
export type GateRemovalPlan =
  /** voe enable added it: remove it from featureGates (if still there) and from the annotation. */
  | { action: 'remove'; listed: boolean }
  /** voe enable did not add it: not touched. */
  | { action: 'not-ours' };

export type SettingPlan = { action: 'create' } | { action: 'exists' };

export type SettingRemovalPlan =
  | { action: 'absent' }
  | { action: 'not-ours' }
  /** voe enable created it and nobody set a value since: delete it. */
  | { action: 'delete' }
  /** voe enable created it but a value was set since: keep it (the value is someone's), drop voe's mark. */
  | { action: 'keep' };

function addedGates(kubeVirt: KubeVirt): string[] {
  const text = kubeVirt.metadata?.annotations?.[ADDED_GATES_ANNOTATION] ?? '';
  return text
    .split(',')
    .map((gate) => gate.trim())
    .filter(Boolean);
}

const developer = (kubeVirt: KubeVirt) => kubeVirt.spec?.configuration?.developerConfiguration;

/** `voe enable`'s decision on the KubeVirt CR (docs/tracker.md "`voe enable` / `voe disable`"). Pure. */
export function planGate(kubeVirt: KubeVirt): GatePlan {
  const version = kubeVirt.status?.observedKubeVirtVersion;
  if (versionAtLeast(version, EXPAND_DISKS_GA_SINCE)) return { action: 'ga', version: version! };
  // Listed wins over disabledFeatureGates, as in KubeVirt (expandDisksState): the gate is on.
  if (developer(kubeVirt)?.featureGates?.includes(EXPAND_DISKS_GATE))
    return addedGates(kubeVirt).includes(EXPAND_DISKS_GATE)
      ? { action: 'already-added' }
      : { action: 'listed' };
  if (developer(kubeVirt)?.disabledFeatureGates?.includes(EXPAND_DISKS_GATE))
    return { action: 'disabled-by-user' };
  return { action: 'add' };
}

/** `voe disable`'s decision on the KubeVirt CR. Pure. */
export function planGateRemoval(kubeVirt: KubeVirt): GateRemovalPlan {
  if (!addedGates(kubeVirt).includes(EXPAND_DISKS_GATE)) return { action: 'not-ours' };
  return {
    action: 'remove',
    listed: developer(kubeVirt)?.featureGates?.includes(EXPAND_DISKS_GATE) ?? false,
  };
}

/** The KubeVirt CR with ExpandDisks added to featureGates and recorded in the annotation. Pure. */
export function withGateAdded<T extends KubeVirt>(kubeVirt: T): T {
  const copy = structuredClone(kubeVirt);
  copy.spec ??= {};
  copy.spec.configuration ??= {};
  copy.spec.configuration.developerConfiguration ??= {};
  const config = copy.spec.configuration.developerConfiguration;
  config.featureGates = [...(config.featureGates ?? []), EXPAND_DISKS_GATE];
  copy.metadata ??= {};
  copy.metadata.annotations = {
    ...copy.metadata.annotations,
    [ADDED_GATES_ANNOTATION]: [...addedGates(kubeVirt), EXPAND_DISKS_GATE].join(','),
  };
  return copy;
}

/** The KubeVirt CR without the ExpandDisks gate voe added, nor its record. Pure. */
export function withGateRemoved<T extends KubeVirt>(kubeVirt: T): T {
  const copy = structuredClone(kubeVirt);
  const config = copy.spec?.configuration?.developerConfiguration;
  if (config?.featureGates)
    config.featureGates = config.featureGates.filter((gate) => gate !== EXPAND_DISKS_GATE);
  const rest = addedGates(kubeVirt).filter((gate) => gate !== EXPAND_DISKS_GATE);
  const annotations = { ...copy.metadata?.annotations };
  if (rest.length > 0) annotations[ADDED_GATES_ANNOTATION] = rest.join(',');
  else delete annotations[ADDED_GATES_ANNOTATION];
  copy.metadata = { ...copy.metadata, annotations };
  return copy;
}

export function planSetting(setting: HarvesterSetting | undefined): SettingPlan {
  return setting ? { action: 'exists' } : { action: 'create' };
}

type AnnotatedSetting = HarvesterSetting & {
  metadata?: HarvesterSetting['metadata'] & { annotations?: Record<string, string> };
};

export function planSettingRemoval(setting: AnnotatedSetting | undefined): SettingRemovalPlan {
  if (!setting) return { action: 'absent' };
  if (setting.metadata?.annotations?.[CREATED_BY_ANNOTATION] === undefined)
    return { action: 'not-ours' };
  return setting.value ? { action: 'keep' } : { action: 'delete' };
}

/** The Setting `voe enable` creates: Harvester's default and no value, marked as voe's. */
export function defaultExpandSetting(name: string): AnnotatedSetting {
  return {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'Setting',
    metadata: { name, annotations: { [CREATED_BY_ANNOTATION]: CREATED_BY_ENABLE } },
    default: EXPAND_VALIDATION_HARVESTER_DEFAULT,
  };
}
