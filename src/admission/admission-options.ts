import { EXPAND_VALIDATION_SETTING_NAME } from '../settings/index.js';

/**
 * What to do with Longhorn v2 data engine volumes:
 * - `auto`: allow when Longhorn >= v1.10.0 (v2 expansion exists there) and the volume's
 *   frontend is not `ublk`; refuse when the version is older or unknown (Harvester's behaviour);
 * - `deny`: always refuse (Harvester v1.6.x);
 * - `allow`: always allow (Harvester >= v1.7.0).
 * Encrypted v2 volumes are refused under every policy (Longhorn cannot grow them).
 */
export type LonghornV2Expansion = 'auto' | 'deny' | 'allow';

export const LONGHORN_V2_EXPANSION_POLICIES: readonly LonghornV2Expansion[] = [
  'auto',
  'deny',
  'allow',
];

/** Where the admission decisions read their inputs, and the Longhorn v2 policy. */
export interface AdmissionOptions {
  /** Harvester Setting listing validated CSI drivers. */
  settingName: string;
  /** The KubeVirt CR Harvester configures. */
  kubeVirtNamespace: string;
  kubeVirtName: string;
  /** Namespace of Longhorn's Volume, Engine and Setting CRs. */
  longhornNamespace: string;
  /** Longhorn Setting holding the installed version (top-level `value`, e.g. v1.10.1). */
  longhornVersionSetting: string;
  longhornV2Expansion: LonghornV2Expansion;
}

/** Harvester's defaults (docs/admission.md "Configuration"). */
export const DEFAULT_ADMISSION_OPTIONS: Readonly<AdmissionOptions> = Object.freeze({
  settingName: EXPAND_VALIDATION_SETTING_NAME,
  kubeVirtNamespace: 'harvester-system',
  kubeVirtName: 'kubevirt',
  longhornNamespace: 'longhorn-system',
  longhornVersionSetting: 'current-longhorn-version',
  longhornV2Expansion: 'auto',
});

/** Fills every option the caller left out with Harvester's default. */
export function resolveAdmissionOptions(partial: Partial<AdmissionOptions> = {}): AdmissionOptions {
  const resolved: AdmissionOptions = { ...DEFAULT_ADMISSION_OPTIONS };
  for (const [key, value] of Object.entries(partial) as Array<[keyof AdmissionOptions, unknown]>) {
    if (value !== undefined) (resolved as unknown as Record<string, unknown>)[key] = value;
  }
  return resolved;
}
